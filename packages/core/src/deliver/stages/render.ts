/**
 * render: the html and text of a template email, from the pinned version with the email's
 * variables and the version's declared fallbacks (a variable without any value
 * fails the email). The template's text when it has one (`''` keeps the text part off),
 * otherwise none, so the mailer derives it from the html as for a plain send.
 *
 * A broadcast's email is personalised instead (personalize-broadcast.ts).
 */
import { renderTemplate } from '../../templates/render-template.js';
import type { DeliverStage } from '../stage.js';
import { personalizeBroadcastEmail } from './personalize-broadcast.js';
import { failDelivery } from './fail.js';

export const render: DeliverStage<'content'> = {
  name: 'render',
  needs: ['content'],
  run(ctx, deps) {
    const { content, template } = ctx;
    if (ctx.email.broadcastId !== null) return personalizeBroadcastEmail(ctx, deps);
    if (!template || !content.template) return;
    const rendered = renderTemplate(
      { html: template.html, ...(template.text ? { text: template.text } : {}) },
      content.template.variables,
      template.version.variables,
    );
    if (!rendered.ok) {
      return failDelivery(
        ctx,
        deps,
        'render',
        `template variables without value: ${rendered.missing.join(', ')}`,
      );
    }
    const { text: _text, ...rest } = content;
    ctx.content = {
      ...rest,
      html: rendered.html ?? '',
      ...(rendered.text !== undefined ? { text: rendered.text } : {}),
    };
  },
};
