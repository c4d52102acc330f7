export { deliverEmail, DELIVERY_STAGES } from './deliver-email.js';
export { decideAttempt } from './attempt-decision.js';
export type { AttemptCase, AttemptDecision, AttemptFacts, DecidedEvent } from './attempt-decision.js';
export { envelopeRecipients } from './recipients.js';
export { RESEND_TEST_DOMAIN, SIMULATED_KINDS, simulatedKind } from './simulator.js';
export type { SimulatedKind } from './simulator.js';
export { recordedRecipientOutcomes } from './recipient-outcomes.js';
export type { Bounce, RecipientOutcome } from './recipient-outcomes.js';
export type { DeliverOutcome, DeliverStageName } from './outcome.js';
export type * from './ports.js';
export type {
  ContextWith,
  Decoration,
  DeliverDeps,
  DeliverStage,
  DeliveryContext,
  DeliveryProducts,
  SignStage,
  SimulatedRecipient,
} from './stage.js';
export {
  computeRetryDelay,
  DEFAULT_RETRY_JITTER,
  DEFAULT_RETRY_SCHEDULE_S,
  DEFAULT_RETRY_WINDOW_S,
  MAX_RETRY_WINDOW_S,
  MIN_RETRY_WINDOW_S,
  RETRY_LADDER_S,
  retryScheduleForWindow,
} from './retry-policy.js';
export type { RetryDelayOptions } from './retry-policy.js';
export * from './verp.js';
export {
  DEFAULT_SOFT_BOUNCE_SETTINGS,
  softBounceFacts,
  softBounceStreakTtlMs,
  softBounceSuppresses,
} from './soft-bounces.js';
export type {
  SoftBounceFacts,
  SoftBounceSettings,
  SoftBounceStreak,
  SoftBounceStreaks,
} from './soft-bounces.js';
