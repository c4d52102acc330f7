// The emails every phase sends. Petrel and the baseline get exactly the same content. Each
// email is personalised (name, order number, items), so no cache keyed by body can make one
// side's work cheaper than a real transactional stream's. Every email carries both html and
// text, so neither side has to derive a text part (Petrel would, nodemailer would not).
import { randomBytes } from 'node:crypto';

export const FROM = 'Petrel Bench <bench@bench.example>';
export const FROM_DOMAIN = 'bench.example';

const NAMES = ['Ada', 'Grace', 'Linus', 'Barbara', 'Ken', 'Margaret', 'Dennis', 'Frances', 'Alan', 'Radia'];
const ITEMS = ['Notebook', 'Pencil set', 'Desk lamp', 'Coffee beans', 'Headphones', 'USB cable', 'Backpack'];

function items(i, n) {
  const out = [];
  for (let k = 0; k < n; k++) {
    const name = ITEMS[(i * 7 + k * 3) % ITEMS.length];
    const qty = 1 + ((i + k) % 4);
    const price = (((i * 31 + k * 17) % 9000) + 100) / 100;
    out.push({ name, qty, price });
  }
  return out;
}

function htmlBody(name, order, list, padParagraphs) {
  const rows = list
    .map(
      (it) =>
        `<tr><td style="padding:4px 8px">${it.name}</td><td style="padding:4px 8px;text-align:right">${it.qty}</td><td style="padding:4px 8px;text-align:right">$${it.price.toFixed(2)}</td></tr>`,
    )
    .join('');
  const total = list.reduce((s, it) => s + it.qty * it.price, 0).toFixed(2);
  const pad = Array.from(
    { length: padParagraphs },
    (_, k) =>
      `<p style="margin:0 0 12px">Paragraph ${k + 1}: we will email you again as soon as your parcel leaves our warehouse. You can follow it at any time from your account page.</p>`,
  ).join('');
  return (
    `<!doctype html><html><body style="font-family:Helvetica,Arial,sans-serif;color:#222">` +
    `<h1 style="font-size:20px">Thanks for your order, ${name}!</h1>` +
    `<p>Order <strong>#${order}</strong> is confirmed.</p>` +
    `<table style="border-collapse:collapse">${rows}</table>` +
    `<p>Total: <strong>$${total}</strong></p>${pad}` +
    `<p style="color:#888;font-size:12px">Petrel Bench Ltd, 1 Example Street. You receive this email because you placed an order.</p>` +
    `</body></html>`
  );
}

function textBody(name, order, list) {
  return (
    `Thanks for your order, ${name}!\n\nOrder #${order} is confirmed.\n\n` +
    list.map((it) => `- ${it.name} x${it.qty}  $${it.price.toFixed(2)}`).join('\n') +
    `\n\nPetrel Bench Ltd, 1 Example Street.\n`
  );
}

/**
 * Email number `i` of a run. `size: 'small'` is ~1 KB of JSON (the ingest phase: a 100-email
 * batch is ~100 KB); `'standard'` has ~2 KB of html (the delivery phases) plus its text part.
 */
export function email(i, size = 'standard', tag = 'r') {
  const name = `${NAMES[i % NAMES.length]} ${tag}${i}`;
  const order = 100_000 + i;
  const list = items(i, size === 'small' ? 3 : 5);
  return {
    from: FROM,
    to: [`user${i}@rcpt.example`],
    subject: `Your order #${order} is confirmed`,
    html: htmlBody(name, order, list, size === 'small' ? 0 : 6),
    text: textBody(name, order, list),
  };
}

export function batch(start, n, size = 'standard', tag = 'r') {
  return Array.from({ length: n }, (_, k) => email(start + k, size, tag));
}

// ---------- templates (phase 3) ----------

/** A template the size of a standard email, with variables in html and text. */
export function templateSource() {
  const list = items(0, 5);
  const html = htmlBody('{{{NAME}}}', '{{{ORDER}}}', list, 6);
  const text = textBody('{{{NAME}}}', '{{{ORDER}}}', list);
  return {
    name: 'bench-order-confirmation',
    subject: 'Your order is confirmed',
    html,
    text,
    variables: [
      { key: 'NAME', type: 'string', fallbackValue: 'there' },
      { key: 'ORDER', type: 'string', fallbackValue: '0' },
    ],
  };
}

export function templatedEmail(i, templateId, tag = 't') {
  return {
    from: FROM,
    to: [`user${i}@rcpt.example`],
    template: {
      id: templateId,
      variables: { NAME: `${NAMES[i % NAMES.length]} ${tag}${i}`, ORDER: String(100_000 + i) },
    },
  };
}

// ---------- ids ----------

/** UUIDv7 (first 48 bits = `ms`), as Petrel's email ids: the sink reads acceptance time from it. */
export function uuidv7(ms = Date.now()) {
  const b = randomBytes(16);
  b.writeUIntBE(ms, 0, 6);
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
