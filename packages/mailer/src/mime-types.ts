/**
 * Content types for attachments: the caller's `content_type` when it is a well-formed media
 * type, otherwise a guess from the filename's extension (a short table of what email carries),
 * otherwise application/octet-stream.
 */

const BY_EXTENSION: Readonly<Record<string, string>> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  txt: 'text/plain',
  csv: 'text/csv',
  htm: 'text/html',
  html: 'text/html',
  ics: 'text/calendar',
  vcf: 'text/vcard',
  json: 'application/json',
  xml: 'application/xml',
  zip: 'application/zip',
  gz: 'application/gzip',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  rtf: 'application/rtf',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  eml: 'message/rfc822',
};

const OCTET_STREAM = 'application/octet-stream';
/** `type/subtype`, optionally followed by printable-ASCII parameters. */
const MEDIA_TYPE = /^[A-Za-z0-9][\w!#$&^.+-]*\/[A-Za-z0-9][\w!#$&^.+-]*(?:[ \t]*;[\x20-\x7e]*)?$/;

/** The Content-Type value (without the `name` parameter) for an attachment. */
export function attachmentType(contentType: string | undefined, filename: string | undefined): string {
  if (contentType !== undefined) {
    const trimmed = contentType.trim();
    if (MEDIA_TYPE.test(trimmed)) return trimmed.replace(/[ \t]*;[ \t]*$/, '');
  }
  if (filename !== undefined) {
    const dot = filename.lastIndexOf('.');
    if (dot !== -1) return BY_EXTENSION[filename.slice(dot + 1).toLowerCase()] ?? OCTET_STREAM;
  }
  return OCTET_STREAM;
}
