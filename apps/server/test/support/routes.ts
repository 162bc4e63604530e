/** Reads the route tree of `printRoutes({ commonPrefix: false })` into method + path pairs. */
export function routesOf(tree: string): Array<{ method: string; path: string }> {
  const stack: string[] = [];
  const out: Array<{ method: string; path: string }> = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (\S+)(?: \(([^)]+)\))?$/.exec(line.trimEnd());
    if (!match) continue;
    const [, indent = '', segment = '', methods] = match;
    stack.length = indent.length / 4;
    stack.push(segment);
    for (const method of methods?.split(/,\s*/) ?? []) out.push({ method, path: stack.join('') });
  }
  return out;
}

/** Every route the router serves under /api/v1/admin (no HEAD or OPTIONS), as `:param` paths. */
export function adminRoutesOf(tree: string): Array<{ method: string; path: string }> {
  return routesOf(tree).filter(
    (route) =>
      (route.path === '/api/v1/admin' || route.path.startsWith('/api/v1/admin/')) &&
      route.method !== 'HEAD' &&
      route.method !== 'OPTIONS',
  );
}
