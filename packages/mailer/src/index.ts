export { buildMessage, OWNED_HEADER_NAMES } from './build-message.js';
export type { BuiltMessage, MessageEnvelope, MessageInput } from './build-message.js';
export { MessageBuildError } from './build-error.js';
export type { MessageBuildErrorReason } from './build-error.js';
export {
  classifySendError,
  classifySendInfo,
  enhancedCode,
  MAX_RETRY_HINT_MS,
  parseRetryHint,
  replyCode,
} from './classify.js';
export type { FailedCommand, RejectedRecipient, SendResult } from './classify.js';
export { createSmtpSender } from './transport.js';
export type { OutgoingMessage, SmtpSender, SmtpSenderOptions } from './transport.js';
export * from './fetch-attachment.js';
export { createDirectSender, MAX_ADDRESSES_PER_HOST } from './direct/direct-sender.js';
export type { DirectObserver, DirectSender, DirectSenderOptions } from './direct/direct-sender.js';
export { createDirectDns } from './direct/dns.js';
export type { AddressLookup, DirectDns, DirectDnsOptions, TxtLookup } from './direct/dns.js';
export { createMtaSts, stsTxt } from './direct/mta-sts.js';
export type { MtaSts, MtaStsOptions, StsLookup } from './direct/mta-sts.js';
export { createSourcePools } from './direct/source-pools.js';
export type { PoolObserver, SourcePick, SourcePools, SourcePoolsOptions } from './direct/source-pools.js';
export { DEFERRAL_REASONS } from './direct/outcome.js';
export type { DeferralReason } from './direct/outcome.js';
export { createDkimSigner, DKIM_OVERSIGNED_HEADERS, DKIM_SIGNED_HEADERS } from './dkim-signer.js';
export type { DkimSignerOptions, SignSync } from './dkim-signer.js';
export { textFromHtml } from './text-from-html.js';
export { attachmentType } from './mime-types.js';
export { createMailauthAuthenticator } from './inbound-auth.js';
export type { MailauthOptions } from './inbound-auth.js';
