/**
 * The configuration of each area (admin/configuration/{type}) in the same schema-driven form as the
 * web services, filled with the current values; Validate asks the server without saving, Save writes.
 * The server's problems come back per field (`field`: the path in the posted envelope) and show there.
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { json } from '../../api/http';
import { type ApiModel, loadApi } from '../../api/openapi';
import { Field } from '../../forms/schema-form';
import { normalizeField, resolve } from '../../forms/schema';
import { useT } from '../../i18n/i18n';
import { ErrorText } from '../../components/error-text';

const TYPES = ['application', 'server', 'user', 'log', 'cluster', 'provider'] as const;

interface Result {
  operation: string;
  error: { errorCode: number; errorMessage: string };
  problems: Array<{ field: string; key: string; message: string }>;
  restartRequired: boolean;
  restartKeys: string[];
  overridden: Array<{ key: string; variable: string }>;
}

export function ConfigurationPage(): JSX.Element {
  const t = useT();
  const [type, setType] = useState<(typeof TYPES)[number]>('application');
  const [api, setApi] = useState<ApiModel>();
  const [value, setValue] = useState<unknown>();
  const [error, setError] = useState<string>();
  const [result, setResult] = useState<Result>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    void loadApi().then(setApi, (failure: Error) => setError(failure.message));
  }, []);
  useEffect(() => {
    setValue(undefined);
    setResult(undefined);
    setError(undefined);
    json<{ configuration: unknown }>(`admin/configuration/${type}`).then(
      (envelope) => setValue(envelope.configuration),
      (failure: Error) => setError(failure.message),
    );
  }, [type]);

  const submit = async (mode: 'validate' | 'write'): Promise<void> => {
    setBusy(true);
    setError(undefined);
    try {
      setResult(await json<Result>('admin/configuration', { method: 'POST', body: { configurationType: type, configurationMode: mode, configuration: value } }));
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
      setResult(undefined);
    } finally {
      setBusy(false);
    }
  };

  const envelopeName = `Admin_${type[0]!.toUpperCase()}${type.slice(1)}Configuration`;
  const schema = api ? resolve(resolve({ $ref: `#/components/schemas/${envelopeName}` }, api.components).properties?.configuration, api.components) : undefined;
  const errors = new Map((result?.problems ?? []).map((problem) => [normalizeField(problem.field), `${problem.message} (${problem.key})`]));
  const problemCount = result?.problems.length ?? 0;
  return (
    <form
      class="configuration"
      onSubmit={(event) => {
        event.preventDefault();
        void submit('write');
      }}
    >
      <div class="field">
        <label for="configuration-type">{t('admin.configurationType')}</label>
        <select id="configuration-type" value={type} onChange={(event) => setType(event.currentTarget.value as (typeof TYPES)[number])}>
          {TYPES.map((candidate) => (
            <option key={candidate} value={candidate}>
              {candidate}
            </option>
          ))}
        </select>
      </div>
      <ErrorText message={error} />
      {result && (
        <div class={problemCount > 0 ? 'error' : 'status'} role={problemCount > 0 ? 'alert' : 'status'}>
          <p>
            {problemCount > 0 ? t('admin.problems', { count: problemCount }) : result.operation === 'write' ? t('admin.saved') : t('admin.valid')}
            {result.restartRequired && ` ${t('admin.restartRequired', { keys: result.restartKeys.join(', ') })}`}
          </p>
          {problemCount > 0 && (
            <ul>
              {result.problems.map((problem) => (
                <li key={problem.field}>
                  <a href={`#f-${normalizeField(problem.field).replace(/\./g, '-')}`}>{problem.key || problem.field}</a>: {problem.message}
                </li>
              ))}
            </ul>
          )}
          {result.overridden.length > 0 && <p>{t('admin.overridden', { keys: result.overridden.map((entry) => `${entry.key} (${entry.variable})`).join(', ') })}</p>}
        </div>
      )}
      {schema && value !== undefined ? (
        <Field name="configuration" schema={schema} components={api!.components} path={['configuration']} value={value} onChange={setValue} errors={errors} required depth={1} />
      ) : (
        !error && <p class="loading">{t('common.loading')}</p>
      )}
      <div class="toolbar sticky">
        <button type="button" class="secondary" disabled={busy || value === undefined} onClick={() => void submit('validate')}>
          {t('admin.validate')}
        </button>
        <button type="submit" disabled={busy || value === undefined}>
          {t('common.save')}
        </button>
      </div>
    </form>
  );
}
