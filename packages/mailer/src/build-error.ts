import { PetrelError } from '@petrel/contracts';

/** Why {@link buildMessage} refused its input. */
export type MessageBuildErrorReason =
  | 'header_injection'
  | 'invalid_header_name'
  | 'owned_header'
  | 'invalid_address'
  | 'invalid_message_id'
  | 'invalid_date'
  | 'invalid_attachment';

/**
 * Thrown by the MIME builder when an input would make an unsafe or malformed message.
 * Validation rejects all of these before acceptance, so reaching one is a bug upstream; the
 * builder still refuses rather than emit a header an attacker shaped (defence in depth).
 * A `validation_error`, so the send processor treats it as permanent and never retries it.
 */
export class MessageBuildError extends PetrelError {
  constructor(
    readonly reason: MessageBuildErrorReason,
    message: string,
  ) {
    super('validation_error', message);
    this.name = 'MessageBuildError';
  }
}
