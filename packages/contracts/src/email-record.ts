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
  /**
   * Base64 content. `''` exactly when `path` is set: validation keeps a `path` attachment
   * unfetched; the acceptance step fetches it, stores the result here and drops `path`.
   */
  content: string;
  /** http(s) URL to fetch the content from; set only until the acceptance step has fetched it. */
  path?: string;
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
  /** `''` when the request left it out for the template to supply (resolved at send time). */
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  reply_to: string[];
  /** `''` when the request left it out for the template to supply (resolved at send time). */
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
