/**
 * Every web service with all its options. The forms come from the OpenAPI document's body schemas
 * (forms/schema-form.tsx); an array of "one of these operations" objects (the toolbox) becomes a chain
 * builder. A call runs synchronously, or as an asynchronous job with progress that can be cancelled
 * while it waits; the server's error message is shown at the field it names, and the result opens in
 * a preview before download.
 */
import type { JSX } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { documents, download, fullName, isPdf, refreshDocuments, remember } from '../api/documents';
import { ApiError, call, json, saveBlob } from '../api/http';
import { type ApiModel, loadApi, type ServiceOperation } from '../api/openapi';
import { useStore } from '../api/store';
import type { DocumentFile, Job } from '../api/types';
import { lazy } from '../components/lazy';
import { Field } from '../forms/schema-form';
import { type Components, fieldErrors, kindOf, resolve, type Schema, withMember } from '../forms/schema';
import { place, placementTargets, type PlacementTarget } from '../forms/placement';
import type { PageBox } from '../preview/pdf-preview';
import { useT } from '../i18n/i18n';
import { linkProps } from '../router';
import { ErrorText } from '../components/error-text';
import { asPdfaReport, type PdfaReport, PdfaReportView } from '../components/pdfa-report';

const PdfPreview = lazy(() => import('../preview/pdf-preview').then((module) => module.PdfPreview));

/** How often a job's state is asked for while it runs. */
const POLL_MS = 500;

export function ServicesPage({ page }: { page: string }): JSX.Element {
  const t = useT();
  const [api, setApi] = useState<ApiModel>();
  const [error, setError] = useState<string>();
  const name = page.split('/')[1];

  useEffect(() => {
    document.title = `${t('services.title')} – Quire`;
    loadApi().then(setApi, (failure: Error) => setError(failure.message));
    if (documents.get().length === 0) void refreshDocuments().catch(() => undefined);
  }, []);

  if (error) return <ErrorText message={error} />;
  if (!api) return <p class="loading">{t('common.loading')}</p>;
  const names = [...api.services.keys()].sort();
  const operations = name ? api.services.get(name) : undefined;
  return (
    <div class="services">
      <nav class="service-list" aria-label={t('services.title')}>
        <h1 tabIndex={-1}>{t('services.title')}</h1>
        <ul>
          {names.map((service) => (
            <li key={service}>
              <a {...linkProps(`services/${service}`)} aria-current={service === name ? 'page' : undefined}>
                {service}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <section class="service" aria-labelledby="service-title">
        {operations ? <ServiceForm key={name} operations={operations} components={api.components} /> : <p class="lead">{t('services.choose')}</p>}
      </section>
    </div>
  );
}

function ServiceForm({ operations, components }: { operations: ServiceOperation[]; components: Components }): JSX.Element {
  const t = useT();
  const list = useStore(documents);
  const [operationId, setOperationId] = useState(operations[0]!.operationId);
  const operation = operations.find((candidate) => candidate.operationId === operationId) ?? operations[0]!;
  const envelope = useMemo(() => resolve(operation.body, components), [operation, components]);
  const [documentId, setDocumentId] = useState<string>('');
  const [value, setValue] = useState<Record<string, unknown>>({});
  const [asJob, setAsJob] = useState(false);
  const [busy, setBusy] = useState(false);
  const [job, setJob] = useState<Job>();
  const [failure, setFailure] = useState<{ message: string; fields: Map<string, string> }>();
  const [result, setResult] = useState<DocumentFile>();
  const [source, setSource] = useState<Blob>();

  useEffect(() => {
    if (!documentId && list.length > 0) setDocumentId(list[list.length - 1]!.documentId);
  }, [list]);

  const selected = list.find((candidate) => candidate.documentId === documentId);
  const chainKey = Object.entries(envelope.properties ?? {}).find(([, member]) => isOperationList(member, components))?.[0];

  const run = async (): Promise<void> => {
    setBusy(true);
    setFailure(undefined);
    setResult(undefined);
    setJob(undefined);
    try {
      const path = operation.path.replace('{documentId}', encodeURIComponent(documentId));
      // A required group the user left untouched is sent empty: its members keep the server's defaults.
      const groups = (envelope.required ?? []).filter((key) => key !== chainKey && kindOf(resolve(envelope.properties?.[key], components)) === 'object');
      const body = { ...Object.fromEntries(groups.map((key) => [key, {}])), ...value };
      // A barcode detection replaces the PDF by its report: keep the PDF to draw the codes found on it.
      const detected = selected && isPdf(selected) && (body as { barcode?: { detect?: unknown } }).barcode?.detect ? await download(documentId) : undefined;
      setSource(detected);
      const response = await call(`${path.slice(1)}${asJob ? '?async=true' : ''}`, { method: 'POST', body });
      let outcome: DocumentFile;
      if (response.status === 202) {
        outcome = await followJob((await response.json()) as Job, setJob);
      } else {
        outcome = (await response.json()) as DocumentFile;
      }
      remember(outcome);
      setResult(outcome);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      setFailure({ message, fields: error instanceof ApiError || error instanceof JobError ? fieldErrors(message) : new Map() });
    } finally {
      setBusy(false);
    }
  };

  const unplaced = failure ? [...failure.fields.keys()].filter((field) => !document.getElementById(`f-${field.replace(/\./g, '-')}`)) : [];
  return (
    <form
      class="service-form"
      onSubmit={(event) => {
        event.preventDefault();
        void run();
      }}
    >
      <h2 id="service-title">{operation.service}</h2>
      <p class="lead">{operation.summary}</p>
      {operations.length > 1 && (
        <div class="field">
          <label for="operation">{t('services.operation')}</label>
          <select id="operation" value={operationId} onChange={(event) => setOperationId(event.currentTarget.value)}>
            {operations.map((candidate) => (
              <option key={candidate.operationId} value={candidate.operationId}>
                {candidate.needsDocument ? t('services.onDocument') : t('services.newDocument')} ({candidate.operationId})
              </option>
            ))}
          </select>
        </div>
      )}
      {operation.needsDocument && (
        <div class="field">
          <label for="document">{t('services.document')}</label>
          <select id="document" required value={documentId} onChange={(event) => setDocumentId(event.currentTarget.value)}>
            <option value="">{t('form.choose')}</option>
            {list.map((document) => (
              <option key={document.documentId} value={document.documentId}>
                {fullName(document)}
              </option>
            ))}
          </select>
          {list.length === 0 && (
            <small class="hint">
              <a {...linkProps('')}>{t('services.uploadFirst')}</a>
            </small>
          )}
        </div>
      )}
      {Object.entries(envelope.properties ?? {}).map(([key, member]) =>
        key === chainKey ? (
          <ChainBuilder
            key={key}
            name={key}
            schema={resolve(member, components)}
            components={components}
            value={(value[key] as unknown[] | undefined) ?? []}
            onChange={(next) => setValue(withMember(value, key, next) as Record<string, unknown>)}
            errors={failure?.fields ?? new Map()}
          />
        ) : (
          <Field
            key={key}
            name={key}
            schema={member}
            components={components}
            path={[key]}
            value={value[key]}
            onChange={(next) => setValue(withMember(value, key, next) as Record<string, unknown>)}
            errors={failure?.fields ?? new Map()}
            required={envelope.required?.includes(key) ?? false}
            depth={1}
            open={envelope.required?.includes(key) ?? false}
          />
        ),
      )}
      {operation.needsDocument && selected && isPdf(selected) && (
        <Placement
          documentId={selected.documentId}
          version={`${selected.historyId}:${selected.fileSize}`}
          targets={placementTargets(envelope, components, value)}
          onPlace={(target, box) => setValue(place(value, target, box))}
        />
      )}
      <div class="field checkbox">
        <input id="as-job" type="checkbox" checked={asJob} onChange={(event) => setAsJob(event.currentTarget.checked)} />
        <label for="as-job">{t('services.asJob')}</label>
      </div>
      {failure && (
        <div class="error" role="alert">
          <p>{failure.message}</p>
          {unplaced.length > 0 && <p class="hint">{t('services.fieldsNotShown', { fields: unplaced.join(', ') })}</p>}
        </div>
      )}
      <div class="toolbar">
        <button type="submit" disabled={busy}>
          {busy ? t('services.running') : t('services.run')}
        </button>
      </div>
      {job && <JobProgress job={job} onCancel={() => void cancelJob(job, setJob)} />}
      {result && <Result document={result} source={source} />}
    </form>
  );
}

/**
 * The toolbox: an array whose items are objects of optional operations (one set per item). Each step
 * chooses its operation and gets that operation's form; the steps run in order as one transaction.
 */
function isOperationList(schema: Schema, components: Components): boolean {
  const array = resolve(schema, components);
  if (kindOf(array) !== 'array') return false;
  const item = resolve(array.items, components);
  const members = Object.values(item.properties ?? {});
  return members.length > 1 && !item.required?.length && members.every((member) => kindOf(resolve(member, components)) === 'object');
}

interface Step {
  operation: string;
  options: unknown;
}

function ChainBuilder({
  name,
  schema,
  components,
  value,
  onChange,
  errors,
}: {
  name: string;
  schema: Schema;
  components: Components;
  value: unknown[];
  onChange: (value: unknown[]) => void;
  errors: Map<string, string>;
}): JSX.Element {
  const t = useT();
  const item = resolve(schema.items, components);
  const choices = Object.keys(item.properties ?? {});
  const steps: Step[] = value.map((entry) => {
    const [operation, options] = Object.entries(entry as Record<string, unknown>)[0] ?? [choices[0]!, {}];
    return { operation, options };
  });
  const write = (next: Step[]) => onChange(next.map((step) => ({ [step.operation]: step.options ?? {} })));
  const [adding, setAdding] = useState(choices.includes('rotate') ? 'rotate' : choices[0]!);
  const error = errors.get(name);
  return (
    <fieldset class="chain" id={`f-${name}`}>
      <legend>{t('services.chain', { name })}</legend>
      {schema.description && <small class="hint">{schema.description}</small>}
      {error && (
        <small class="field-error" role="alert">
          {error}
        </small>
      )}
      <ol class="chain-steps">
        {steps.map((step, index) => (
          // The position is the step's identity in the body: a key by index is right here.
          <li key={index} class="chain-step">
            <div class="chain-step-head">
              <label for={`step-${index}`}>{t('services.step', { number: index + 1 })}</label>
              <select id={`step-${index}`} value={step.operation} onChange={(event) => write(steps.map((other, at) => (at === index ? { operation: event.currentTarget.value, options: {} } : other)))}>
                {choices.map((choice) => (
                  <option key={choice} value={choice}>
                    {choice}
                  </option>
                ))}
              </select>
              <button type="button" class="small secondary" disabled={index === 0} onClick={() => write(swap(steps, index, index - 1))} aria-label={t('services.moveUp', { number: index + 1 })}>
                ↑
              </button>
              <button
                type="button"
                class="small secondary"
                disabled={index === steps.length - 1}
                onClick={() => write(swap(steps, index, index + 1))}
                aria-label={t('services.moveDown', { number: index + 1 })}
              >
                ↓
              </button>
              <button type="button" class="small danger" onClick={() => write(steps.filter((_, at) => at !== index))}>
                {t('form.remove', { name: t('services.step', { number: index + 1 }) })}
              </button>
            </div>
            <Field
              name={step.operation}
              schema={item.properties![step.operation]!}
              components={components}
              path={[name, index, step.operation]}
              value={step.options}
              onChange={(options) => write(steps.map((other, at) => (at === index ? { ...other, options: options ?? {} } : other)))}
              errors={errors}
              required
              depth={1}
            />
          </li>
        ))}
      </ol>
      <div class="chain-add">
        <label for="chain-add">{t('services.addStep')}</label>
        <select id="chain-add" value={adding} onChange={(event) => setAdding(event.currentTarget.value)}>
          {choices.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
        <button type="button" class="secondary" onClick={() => write([...steps, { operation: adding, options: {} }])}>
          {t('form.add', { name: adding })}
        </button>
      </div>
    </fieldset>
  );
}

function swap<T>(items: T[], a: number, b: number): T[] {
  const copy = [...items];
  [copy[a], copy[b]] = [copy[b]!, copy[a]!];
  return copy;
}

class JobError extends Error {}

/** Polls the job until it has finished; its result or its error (with the field it names). */
async function followJob(accepted: Job, show: (job: Job) => void): Promise<DocumentFile> {
  let job = accepted;
  show(job);
  while (job.state === 'queued' || job.state === 'running') {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    job = await json<Job>(`jobs/${accepted.jobId}`);
    show(job);
  }
  if (job.state === 'succeeded' && job.result) return job.result;
  throw new JobError(job.error?.errorMessage ?? job.state);
}

async function cancelJob(job: Job, show: (job: Job) => void): Promise<void> {
  try {
    await call(`jobs/${job.jobId}`, { method: 'DELETE' });
    show({ ...job, state: 'failed', error: { errorCode: 0, errorMessage: 'cancelled' } });
  } catch {
    // started meanwhile (409): the poll shows what it does
  }
}

function JobProgress({ job, onCancel }: { job: Job; onCancel: () => void }): JSX.Element {
  const t = useT();
  return (
    <div class="job" role="status">
      <span>{t(`services.job.${job.state}`)}</span>
      <progress max={100} value={job.progress} aria-label={t('services.jobProgress')} />
      {job.state === 'queued' && (
        <button type="button" class="small danger" onClick={onCancel}>
          {t('services.cancelJob')}
        </button>
      )}
    </div>
  );
}

function Result({ document, source }: { document: DocumentFile; source?: Blob }): JSX.Element {
  const t = useT();
  const [error, setError] = useState<string>();
  return (
    <section class="result" aria-labelledby="result-title">
      <h3 id="result-title">{t('services.result', { name: fullName(document) })}</h3>
      <div class="toolbar">
        <button
          type="button"
          onClick={() =>
            void download(document.documentId).then(
              (content) => saveBlob(content, fullName(document)),
              (failure: Error) => setError(failure.message),
            )
          }
        >
          {t('documents.download')}
        </button>
      </div>
      <ErrorText message={error} />
      {isJson(document) && <JsonReport document={document} source={source} />}
      {isPdf(document) && <PdfPreview documentId={document.documentId} version={`${document.historyId}:${document.fileLastModified}:${document.fileSize}`} />}
    </section>
  );
}

/**
 * A result that may be a JSON report: typed JSON, or a pdfa analyze report by its name (the server
 * currently stores it as .txt, text/plain). Small files only: a report is read whole into the page.
 */
const isJson = (document: DocumentFile) =>
  document.fileSize <= 8 * 1024 * 1024 && (document.mimeType === 'application/json' || document.fileExtension.toLowerCase() === 'json' || /-pdfa-\w+-report$/.test(document.fileName));

/** A JSON result shown as what it is: a PDF/A report (pdfa analyze) becomes a readable report; other text is left to the download. */
function JsonReport({ document, source }: { document: DocumentFile; source?: Blob }): JSX.Element | null {
  const t = useT();
  const [report, setReport] = useState<PdfaReport>();
  const [codes, setCodes] = useState<PageBox[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let current = true;
    download(document.documentId)
      .then((content) => content.text())
      .then(
        (text) => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            return; // not JSON (an XML report, plain text): download only
          }
          if (!current) return;
          setReport(asPdfaReport(parsed));
          setCodes(barcodeBoxes(parsed));
        },
        (failure: Error) => current && setError(t('pdfa.reportUnreadable', { message: failure.message })),
      );
    return () => {
      current = false;
    };
  }, [document.documentId, document.historyId]);
  if (error) return <ErrorText message={error} />;
  if (report) return <PdfaReportView report={report} />;
  if (codes) return <BarcodeResults documentId={document.documentId} codes={codes} source={source} />;
  return null;
}

/** Points per unit of the reports' `metrics`. */
const POINTS: Record<string, number> = { pt: 1, pc: 12, px: 0.75, mm: 72 / 25.4, in: 72 };

/** The codes of a barcode detection report with their boxes in points (user coordinates only: pdf ones would need each page's height). */
function barcodeBoxes(value: unknown): PageBox[] | undefined {
  const results = (value as { barcodes?: { results?: unknown } } | null)?.barcodes?.results;
  if (!Array.isArray(results)) return undefined;
  return (results as Array<{ format?: string; value?: string; page?: number; position?: Record<string, number | string> }>).flatMap((code) => {
    const position = code.position;
    const scale = POINTS[String(position?.metrics ?? 'mm')];
    if (!position || !scale || (position.coordinates ?? 'user') !== 'user') return [];
    const at = (key: string) => Number(position[key] ?? 0) * scale;
    return [{ page: code.page ?? 1, x: at('x'), y: at('y'), width: at('width'), height: at('height'), label: `${code.format ?? ''}: ${code.value ?? ''}` }];
  });
}

/** A barcode detection: the codes as a list, and drawn on the PDF they were found on (when the portal kept it). */
function BarcodeResults({ documentId, codes, source }: { documentId: string; codes: PageBox[]; source?: Blob }): JSX.Element {
  const t = useT();
  return (
    <section class="barcodes" aria-labelledby="barcodes-title">
      <h4 id="barcodes-title">{t('services.codesFound', { count: codes.length })}</h4>
      <ul data-testid="barcodes">
        {codes.map((code, index) => (
          // Codes have no identity of their own: their position in the report is it.
          <li key={index}>
            {code.label} ({t('services.onPage', { page: code.page })})
          </li>
        ))}
      </ul>
      {source && <PdfPreview documentId={documentId} source={source} boxes={codes} />}
    </section>
  );
}

/**
 * Placement by dragging: the chosen member (signature appearance, a barcode) gets the rectangle dragged
 * on the page preview as its position (millimetres, user coordinates) and its page.
 */
function Placement({
  documentId,
  version,
  targets,
  onPlace,
}: {
  documentId: string;
  version: string;
  targets: PlacementTarget[];
  onPlace: (target: PlacementTarget, box: PageBox) => void;
}): JSX.Element | null {
  const t = useT();
  const [chosen, setChosen] = useState(0);
  const [placed, setPlaced] = useState<PageBox>();
  if (targets.length === 0) return null;
  const target = targets[Math.min(chosen, targets.length - 1)]!;
  const name = (candidate: PlacementTarget) => candidate.path.join('.');
  return (
    <fieldset class="placement">
      <legend>{t('services.placement')}</legend>
      <div class="field">
        <label for="placement-target">{t('services.placementTarget')}</label>
        <select id="placement-target" value={String(chosen)} onChange={(event) => setChosen(Number(event.currentTarget.value))}>
          {targets.map((candidate, index) => (
            <option key={name(candidate)} value={String(index)}>
              {name(candidate)}
            </option>
          ))}
        </select>
        <small class="hint">{t('services.placementHint')}</small>
      </div>
      {placed && (
        <p class="hint" role="status" data-testid="placed">
          {t('services.placed', { target: name(target), page: placed.page })}
        </p>
      )}
      <PdfPreview
        documentId={documentId}
        version={version}
        boxes={placed ? [{ ...placed, label: name(target) }] : []}
        onSelect={(box) => {
          setPlaced(box);
          onPlace(target, box);
        }}
      />
    </fieldset>
  );
}
