/**
 * Acceptance stage: until topic subscriptions are implemented, an email with `topic_id` is
 * refused rather than sent ignoring the recipients' opt-outs.
 */
import { fieldPrefix, refuse, type AcceptStage } from './stage.js';

export const refuseTopics: AcceptStage = async (email, ctx) =>
  email.topic_id
    ? refuse(`${fieldPrefix(ctx)}topic_id: topics are not supported by this server yet`)
    : { email };
