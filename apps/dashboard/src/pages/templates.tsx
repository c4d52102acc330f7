/**
 * Templates: the list, create, and an editor with a live preview: the html rendered with sample
 * variable values (as the API would render them) in a sandboxed frame; save and publish.
 */
import { useMemo, useState } from 'preact/hooks';
import { api, seg, type List } from '../api';
import { bind, withoutEmpty } from '../form';
import { formatDate } from '../format';
import {
  formatDeclaredVariables,
  parseDeclaredVariables,
  parseSampleVariables,
  placeholderNames,
  renderPreview,
} from '../template-text';
import { href } from '../url';
import {
  CreateCard,
  createAndOpen,
  DetailPage,
  DeleteAndBack,
  ErrorNote,
  Field,
  ListTable,
  Page,
  SandboxedHtml,
  Status,
  TextArea,
  useAction,
  useAsync,
} from '../ui';

interface TemplateItem {
  id: string;
  name: string;
  alias: string | null;
  status: string;
  published_at: string | null;
  created_at: string;
  updated_at: string;
}

interface Variable {
  key: string;
  type: 'string' | 'number';
  fallback_value?: string | number | null;
}

interface Template extends TemplateItem {
  from: string | null;
  subject: string | null;
  html: string | null;
  text: string | null;
  variables: Variable[] | null;
  has_unpublished_versions: boolean;
}

export function Templates() {
  const list = useAsync(() => api.get<List<TemplateItem>>('/templates', { limit: 100 }), []);
  const [name, setName] = useState('');
  return (
    <Page title="Templates">
      <CreateCard
        title="New template"
        submitLabel="Create"
        onSubmit={() => createAndOpen('templates', { name, html: '<p>Hello {{{NAME|there}}}</p>' })}
      >
        <Field label="Name" id="tpl-name" required value={name} onValue={setName} />
      </CreateCard>
      <ListTable
        list={list}
        caption="Templates"
        columns={[
          { header: 'Name', cell: (t) => <a href={href('templates', t.id)}>{t.name}</a> },
          { header: 'Alias', cell: (t) => t.alias ?? '—' },
          { header: 'Status', cell: (t) => <Status value={t.status} /> },
          { header: 'Updated', cell: (t) => formatDate(t.updated_at) },
        ]}
      />
    </Page>
  );
}

function Editor({ t, reload }: { t: Template; reload: () => void }) {
  const [form, setForm] = useState({
    name: t.name,
    subject: t.subject ?? '',
    from: t.from ?? '',
    html: t.html ?? '',
    text: t.text ?? '',
  });
  const [declaredText, setDeclaredText] = useState(() =>
    formatDeclaredVariables(
      (t.variables ?? []).map((v) => ({
        key: v.key,
        type: v.type,
        fallback_value: v.fallback_value ?? null,
      })),
    ),
  );
  const [samples, setSamples] = useState('');
  const action = useAction();
  const [saved, setSaved] = useState<string>();
  const declaredList = parseDeclaredVariables(declaredText);
  const declared = useMemo(() => {
    const out: Record<string, string | number | null | undefined> = {};
    for (const v of parseDeclaredVariables(declaredText)) out[v.key] = v.fallback_value;
    return out;
  }, [declaredText]);
  const values = parseSampleVariables(samples);
  const previewHtml = renderPreview(form.html, values, { html: true, fallbacks: declared });
  const previewSubject = renderPreview(form.subject, values, { html: false, fallbacks: declared });
  const used = placeholderNames(`${form.subject}\n${form.html}\n${form.text}`);

  const save = () =>
    api.patch(`/templates/${seg(t.id)}`, {
      ...withoutEmpty(form, ['subject', 'from', 'text']),
      variables: declaredList,
    });

  return (
    <div class="editor">
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(save).then((ok) => ok && (setSaved('Saved.'), reload()));
        }}
      >
        <Field label="Name" id="te-name" required {...bind(form, setForm, 'name')} />
        <Field label="From" id="te-from" {...bind(form, setForm, 'from')} />
        <Field label="Subject" id="te-subject" {...bind(form, setForm, 'subject')} />
        <TextArea label="HTML" id="te-html" rows={12} {...bind(form, setForm, 'html')} />
        <TextArea label="Text" id="te-text" rows={4} {...bind(form, setForm, 'text')} />
        <TextArea
          label="Declared variables (KEY, KEY=fallback or KEY:number=5 per line)"
          id="te-vars"
          rows={3}
          value={declaredText}
          onValue={setDeclaredText}
        />
        <TextArea
          label="Sample values for the preview (KEY=value per line)"
          id="te-samples"
          rows={3}
          value={samples}
          onValue={setSamples}
        />
        <p class="muted">Placeholders used: {used.length ? used.join(', ') : 'none'}</p>
        <ErrorNote error={action.error} />
        {saved && <p role="status">{saved}</p>}
        <div class="row">
          <button type="submit" class="primary" disabled={action.busy}>
            Save
          </button>
          <button
            type="button"
            disabled={action.busy}
            onClick={() =>
              void action
                .run(async () => {
                  await save();
                  await api.post(`/templates/${seg(t.id)}/publish`);
                })
                .then((ok) => ok && (setSaved('Saved and published.'), reload()))
            }
          >
            Save and publish
          </button>
          <DeleteAndBack collection="templates" id={t.id} action={action} />
        </div>
      </form>
      <section aria-labelledby="h-preview" class="preview">
        <h2 id="h-preview">Preview</h2>
        <p>
          <strong>Subject:</strong> <span data-testid="preview-subject">{previewSubject}</span>
        </p>
        <SandboxedHtml html={previewHtml} title="Template preview (sandboxed)" />
      </section>
    </div>
  );
}

export function TemplateEdit({ id }: { id: string }) {
  const t = useAsync(() => api.get<Template>(`/templates/${seg(id)}`), [id]);
  return (
    <DetailPage kind="template" title={(data) => `Template: ${data.name}`} item={t}>
      {(data) => (
        <>
          <p>
            <Status value={data.status} />
            {data.has_unpublished_versions && <span class="muted"> · unpublished changes</span>}
          </p>
          <Editor key={data.id} t={data} reload={t.reload} />
        </>
      )}
    </DetailPage>
  );
}
