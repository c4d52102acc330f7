/**
 * The closed set of error names Petrel answers with, and the HTTP status of each
 * (../shared/reference/resend-wire.md C.1). The error body on the wire is always
 * `{ statusCode, name, message }`.
 */
export const ERROR_STATUS = {
  validation_error: 422,
  missing_required_field: 422,
  invalid_parameter: 422,
  invalid_attachment: 422,
  invalid_from_address: 422,
  invalid_access: 422,
  invalid_idempotency_key: 400,
  missing_api_key: 401,
  restricted_api_key: 401,
  invalid_api_key: 403,
  not_found: 404,
  method_not_allowed: 405,
  invalid_idempotent_request: 409,
  concurrent_idempotent_requests: 409,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limit_exceeded: 429,
  application_error: 500,
  internal_server_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorName = keyof typeof ERROR_STATUS;

/** The JSON body of every non-2xx response. */
export interface ErrorBody {
  statusCode: number;
  name: ErrorName;
  message: string;
}

/**
 * A domain error with a wire name. Thrown anywhere below the HTTP edge; the API's one
 * error middleware turns it into `{ statusCode, name, message }`.
 */
export class PetrelError extends Error {
  readonly statusCode: number;
  constructor(
    readonly errorName: ErrorName,
    message: string,
    statusCode?: number,
  ) {
    super(message);
    this.name = 'PetrelError';
    this.statusCode = statusCode ?? ERROR_STATUS[errorName];
  }

  toBody(): ErrorBody {
    return { statusCode: this.statusCode, name: this.errorName, message: this.message };
  }
}

export const validationError = (message: string, status = 422): PetrelError =>
  new PetrelError('validation_error', message, status);
export const notFound = (what: string): PetrelError => new PetrelError('not_found', `${what} not found`);
