/**
 * When an update of a template changes its content. Only a change of content makes a new
 * version: a rename or an alias change keeps the current version id, so a publish that was
 * checked against it still publishes what was checked. Variable records are compared by what a
 * send reads of them (key, type, fallback), not by their ids or timestamps.
 */

/** The content of one template version, as both the Redis store and the in-memory port hold it. */
export interface VersionContent {
  from: string | null;
  subject: string | null;
  reply_to: readonly string[] | null;
  html: string;
  text: string | null;
  variables: readonly { key: string; type: string; fallback_value: string | number | null }[];
}

export function sameTemplateContent(a: VersionContent, b: VersionContent): boolean {
  const strip = (vars: VersionContent['variables']) => vars.map((v) => [v.key, v.type, v.fallback_value]);
  return (
    a.from === b.from &&
    a.subject === b.subject &&
    a.html === b.html &&
    a.text === b.text &&
    JSON.stringify(a.reply_to) === JSON.stringify(b.reply_to) &&
    JSON.stringify(strip(a.variables)) === JSON.stringify(strip(b.variables))
  );
}
