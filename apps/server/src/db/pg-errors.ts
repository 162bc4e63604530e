/** Whether a database error is a unique-constraint violation (SQLSTATE 23505), e.g. a lost race on a unique slug. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === '23505';
}
