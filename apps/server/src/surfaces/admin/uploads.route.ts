import multipart, { type Multipart, type MultipartFile } from '@fastify/multipart';
import {
  dataEnvelope,
  UPLOAD_ACCEPTED_EXTENSIONS,
  UPLOAD_FIELD,
  UPLOAD_MAX_BYTES,
  UPLOAD_MAX_FILES,
  ZServiceError,
  ZSource,
} from '@service/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { AppError, validationError } from '../../errors/app-error.js';
import { type IncomingUpload, sanitiseUploadName, uploadFiles } from '../../services/knowledge/uploads.js';
import { adminScope } from './admin-auth.js';
import { bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';

const tags = ['admin: sources'];

const MULTIPART_ONLY = `Send multipart/form-data with the files in the field "${UPLOAD_FIELD}".`;

/** Busboy limits: the files, and next to nothing else (other fields are refused anyway). */
const MULTIPART_LIMITS = {
  fileSize: UPLOAD_MAX_BYTES,
  files: UPLOAD_MAX_FILES,
  fields: 5,
  fieldSize: 1024,
  fieldNameSize: 100,
  parts: UPLOAD_MAX_FILES + 5,
  headerPairs: 20,
};

const tooManyFiles = () => {
  const message = `At most ${UPLOAD_MAX_FILES} files can be uploaded in one request.`;
  return new AppError('payload_too_large', { message, errors: { [UPLOAD_FIELD]: [message] } });
};

/** Reads one file part into memory; over the per-file cap it is a 413 naming the file. */
async function readFilePart(part: MultipartFile, name: string): Promise<Uint8Array> {
  const tooLarge = () => {
    const message = `${name}: the file is larger than 50 MB (${UPLOAD_MAX_BYTES} bytes).`;
    return new AppError('payload_too_large', { message, errors: { [UPLOAD_FIELD]: [message] } });
  };
  const chunks: Buffer[] = [];
  for await (const chunk of part.file) {
    // busboy stops at the cap and flags the stream; nothing past UPLOAD_MAX_BYTES is held.
    if (part.file.truncated) throw tooLarge();
    chunks.push(chunk);
  }
  // The cap can fall on a chunk boundary: then no chunk follows the flag, and the stream just ends.
  if (part.file.truncated) throw tooLarge();
  return Buffer.concat(chunks);
}

/** Turns a multipart parser failure into the envelope's codes. */
function multipartError(app: FastifyInstance, error: unknown): AppError {
  if (error instanceof AppError) return error;
  const errors = app.multipartErrors;
  if (error instanceof errors.FilesLimitError || error instanceof errors.PartsLimitError)
    return tooManyFiles();
  if (error instanceof errors.FieldsLimitError) return validationError({ input: [MULTIPART_ONLY] });
  const detail = error instanceof Error ? error.message : String(error);
  return new AppError('bad_request', { message: `The multipart body could not be read (${detail}).` });
}

/**
 * The request's files, one at a time, as the service reads them. Any part other than a file
 * in the `file` field is a 422 naming it; the caps are 413s.
 */
async function* readUploads(app: FastifyInstance, request: FastifyRequest): AsyncGenerator<IncomingUpload> {
  const parts = request.parts({ limits: MULTIPART_LIMITS });
  while (true) {
    let next: IteratorResult<Multipart>;
    try {
      next = await parts.next();
    } catch (error) {
      throw multipartError(app, error);
    }
    if (next.done) return;
    const part = next.value;
    // The field name goes back as an `errors` key: no control characters.
    const field = part.fieldname.replace(/\p{Cc}/gu, '') || 'input';
    if (part.type === 'field') {
      throw validationError({
        [field]: [
          field === UPLOAD_FIELD
            ? `The ${UPLOAD_FIELD} field must be a file (a part with a filename), not a value.`
            : `The ${field} field is not allowed; ${MULTIPART_ONLY}`,
        ],
      });
    }
    if (part.fieldname !== UPLOAD_FIELD) {
      throw validationError({ [field]: [`The ${field} field is not allowed; ${MULTIPART_ONLY}`] });
    }
    let bytes: Uint8Array;
    try {
      bytes = await readFilePart(part, sanitiseUploadName(part.filename));
    } catch (error) {
      throw multipartError(app, error);
    }
    yield { fileName: part.filename, bytes };
  }
}

/** `POST /api/v1/admin/agents/{id}/uploads`: the only admin route that takes multipart. */
export function uploadRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    // Encapsulated here: this plugin parses multipart and nothing else; no other route does.
    app.removeAllContentTypeParsers();
    await app.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: false });
    app.addContentTypeParser('*', (_request, _payload, done) => {
      done(
        new AppError('unsupported_media_type', { message: `Unsupported content type; ${MULTIPART_ONLY}` }),
      );
    });

    app.post(
      '/agents/:id/uploads',
      {
        config: { permission: 'knowledge.edit', expensive: true },
        schema: {
          tags,
          summary: 'Upload files as knowledge sources of an agent',
          description:
            `multipart/form-data, files in the field "${UPLOAD_FIELD}" (repeatable, at most ${UPLOAD_MAX_FILES}, ` +
            `each at most ${UPLOAD_MAX_BYTES} bytes). Accepted: ${UPLOAD_ACCEPTED_EXTENSIONS.join(', ')}; the ` +
            'type is decided from the bytes and the name must agree. All or nothing: one refused file is a 422 ' +
            'listing each refused file in errors.file, and nothing is stored. Each accepted file becomes one ' +
            'source of type upload (status indexing) with one document of its extracted text.',
          security: bearerSecurity,
          params: ZIdParams,
          response: {
            201: dataEnvelope(z.array(ZSource)),
            ...recordErrorResponses,
            413: ZServiceError.describe('A file over 50 MB, or more than 10 files'),
            415: ZServiceError.describe('Not multipart/form-data'),
          },
        },
      },
      async (request, reply) => {
        if (!request.isMultipart()) {
          throw new AppError('unsupported_media_type', {
            message: `Unsupported content type; ${MULTIPART_ONLY}`,
          });
        }
        const scope = {
          ...adminScope(deps, request),
          queue: deps.queue,
          embeddingsKey: deps.embeddings?.key ?? null,
        };
        try {
          const sources = await uploadFiles(scope, request.params.id, readUploads(app, request));
          return reply.status(201).send({ data: sources });
        } catch (error) {
          // The rest of an oversized body is not read: tell the client not to reuse the connection.
          if (error instanceof AppError && error.status === 413) reply.header('connection', 'close');
          throw error;
        }
      },
    );
  };
}
