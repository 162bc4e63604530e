/** Thrown when an upload is over one of the extraction caps; the message is meant for the admin. */
export class UploadLimitError extends Error {
  override name = 'UploadLimitError';
}
