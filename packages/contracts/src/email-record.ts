/**
 * The normalised email that validation produces and the store, the worker and the mailer consume.
 * Addresses are kept as the client wrote them (bare or `Display Name <address>`) once validated;
 * lists are always arrays.
 */
export interface Tag {
  name: string;
  value: string;
}

export interface AttachmentInput {
  /** Base64 content. A `path` attachment is fetched at acceptance and stored as content. */
  content: string;
  filename?: string;
  content_type?: string;
  /** Set for inline images referenced as `cid:<content_id>` in the html. */
  content_id?: string;
}

export interface TemplateRef {
  /** Template id or alias, as the client sent it. */
  id: string;
  variables: Record<string, string | number>;
}

export interface EmailContent {
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  reply_to: string[];
  subject: string;
  html?: string;
  /** `''` turns off the text part generated from html. */
  text?: string;
  headers: Record<string, string>;
  tags: Tag[];
  attachments: AttachmentInput[];
  template?: TemplateRef;
  topic_id?: string;
  /** ISO 8601, already resolved from natural language. */
  scheduled_at?: string;
}
