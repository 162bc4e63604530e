import { ZServiceError } from '@service/contract';

/** Error responses every token-authenticated widget route documents. */
export const widgetErrorResponses = {
  401: ZServiceError.describe('Missing, expired or invalid widget token (no detail)'),
  403: ZServiceError.describe("The Origin is not in the agent's allowed_origins"),
  422: ZServiceError.describe('Validation failed; see errors.<field>'),
  429: ZServiceError.describe('Over the limit; see Retry-After'),
} as const;

/** OpenAPI security requirement for widget-token routes. */
export const widgetSecurity = [{ bearerAuth: [] }];

/** OpenAPI tag of the widget surface. */
export const widgetTags = ['widget'];
