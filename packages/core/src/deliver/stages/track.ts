/**
 * track: open and click tracking, for a team that switched it on (Resend's `open_tracking` /
 * `click_tracking`, off by default). Opens: a 1×1 image at the end of the html, loaded from
 * `PUBLIC_URL/t/o/<token>`; clicks: every http(s) link of the html rewritten to
 * `PUBLIC_URL/t/c/<token>`, which redirects to exactly the original URL (tracking/track-html.ts
 * says which links stay as they are). Text parts are left alone, and so is an email without html.
 *
 * The tokens name the recipient, so when tracking is on each recipient gets a message of their
 * own (build-mime), as with the unsubscribe links: an open or a click is then theirs, not
 * anyone's among the To and Cc, and a forwarded copy does not pass for another recipient's.
 * Runs after render (the final html, placeholders filled in) and before decorate.
 */
import { findTrackableLinks, pixelTag, trackedHtml } from '../../tracking/track-html.js';
import type { DeliverStage } from '../stage.js';

export const track: DeliverStage<'content' | 'recipients'> = {
  name: 'track',
  needs: ['content', 'recipients'],
  async run(ctx, deps) {
    const html = ctx.content.html;
    if (!html) return;
    const { teamId } = ctx.job;
    const settings = await deps.tracking.settings.get(teamId);
    if (!settings.open && !settings.click) return;
    const { links } = deps.tracking;
    const found = settings.click ? findTrackableLinks(html, links.base) : { parts: [html], urls: [] };
    if (!settings.open && found.urls.length === 0) return;
    const emailId = ctx.email.id;
    ctx.recipientHtml = new Map(
      ctx.recipients.map((recipient) => {
        const signed = new Map<string, string>(); // a URL that appears twice gets one token
        const link = (url: string) => {
          let to = signed.get(url);
          if (to === undefined) signed.set(url, (to = links.clickUrl({ teamId, emailId, recipient, url })));
          return to;
        };
        const pixel = settings.open ? pixelTag(links.openUrl({ teamId, emailId, recipient })) : null;
        return [recipient, trackedHtml(found, link, pixel)];
      }),
    );
  },
};
