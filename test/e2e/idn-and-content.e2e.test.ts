/**
 * Internationalised addresses and the content rule through the official `resend` SDK:
 * an IDN domain (`user@bücher.example`, RFC 5890/5891) and a UTF-8 local part
 * (`josé@example.com`, RFC 6531) are accepted and recorded as the client wrote them; an email
 * with no html, no text and no template is refused with a 422 `validation_error` naming the
 * fields (a template brings its own content; `text: ""` only turns off the text generated from
 * html, so alone it is no content).
 */
import { describe, expect, it } from 'vitest';
import { email, fileStack } from './helpers.js';

const stack = fileStack();

const NO_CONTENT = 'one of html, text or template is required';

describe('internationalised addresses', () => {
  it('accepts an IDN domain and a UTF-8 local part on POST /emails, and the record keeps them', async () => {
    const sent = {
      from: 'Bücherei <josé@bücher.example>',
      to: ['user@bücher.example', 'josé@example.com'],
      cc: ['用户@例子.广告'],
      replyTo: 'ayuda@ejemplo.españa', // the SDK's name for reply_to
      subject: 'Grüße',
      html: '<p>Hallo</p>',
    };
    const { data, error } = await stack.resend.emails.send(sent);
    expect(error).toBeNull();
    const record = await stack.resend.emails.get(data!.id);
    expect(record.error).toBeNull();
    expect(record.data).toMatchObject({
      id: data!.id,
      from: sent.from,
      to: sent.to,
      cc: sent.cc,
      reply_to: [sent.replyTo],
      subject: sent.subject,
    });
  });

  it('accepts them in a batch, each record keeping its own addresses', async () => {
    const emails = [
      email(0, { to: ['user@bücher.example'] }),
      email(1, { from: 'José <josé@acme.test>', to: 'müller@straße.example' }),
    ];
    const { data, error } = await stack.resend.batch.send(emails as never);
    expect(error).toBeNull();
    expect(data!.data).toHaveLength(2);
    const [first, second] = await Promise.all(data!.data.map((d) => stack.resend.emails.get(d.id)));
    expect(first!.data).toMatchObject({ to: ['user@bücher.example'], from: emails[0]!.from });
    expect(second!.data).toMatchObject({ to: ['müller@straße.example'], from: 'José <josé@acme.test>' });
  });

  it('still refuses a domain that is not valid IDNA, naming the element', async () => {
    const { data, error } = await stack.resend.emails.send({
      ...email(0),
      to: ['user@bücher.example', 'user@bü-.example'],
    } as never);
    expect(data).toBeNull();
    expect(error).toMatchObject({
      statusCode: 422,
      name: 'validation_error',
      message: 'to[1]: invalid address (invalid domain)',
    });
  });
});

describe('an email needs html, text or a template', () => {
  const bare = () => {
    const body = email(0);
    delete body.html;
    return body;
  };

  it('refuses a single send with none of them', async () => {
    const { data, error } = await stack.resend.emails.send(bare() as never);
    expect(data).toBeNull();
    expect(error).toMatchObject({
      statusCode: 422,
      name: 'validation_error',
      message: `body: ${NO_CONTENT}`,
    });
  });

  it('refuses text "" alone, saying why', async () => {
    const { error } = await stack.resend.emails.send({ ...bare(), text: '' } as never);
    expect(error).toMatchObject({
      statusCode: 422,
      name: 'validation_error',
      message: `body: ${NO_CONTENT} (text "" only turns off the text part generated from html)`,
    });
  });

  it('accepts html with text "" and text alone', async () => {
    const withHtml = await stack.resend.emails.send({ ...email(1), text: '' } as never);
    expect(withHtml.error).toBeNull();
    const textOnly = await stack.resend.emails.send({ ...bare(), text: 'Hello' } as never);
    expect(textOnly.error).toBeNull();
    expect((await stack.resend.emails.get(textOnly.data!.id)).data).toMatchObject({
      text: 'Hello',
      html: null,
    });
  });

  it('strict batch: names the email; permissive batch: reports it by index and accepts the rest', async () => {
    const strict = await stack.resend.batch.send([email(0), bare()] as never);
    expect(strict.data).toBeNull();
    expect(strict.error).toMatchObject({
      statusCode: 422,
      name: 'validation_error',
      message: `emails[1]: ${NO_CONTENT}`,
    });

    const permissive = await stack.resend.batch.send([email(0), bare(), email(2)] as never, {
      batchValidation: 'permissive',
    });
    expect(permissive.error).toBeNull();
    expect(permissive.data!.data).toHaveLength(2);
    expect((permissive.data as unknown as { errors: unknown }).errors).toEqual([
      { index: 1, message: `emails[1]: ${NO_CONTENT}` },
    ]);
  });
});
