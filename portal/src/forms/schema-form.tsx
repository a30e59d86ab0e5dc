/**
 * One form renderer for every web service, driven by the JSON schema of the operation's body as the
 * OpenAPI document serves it: enums → selects, booleans → checkboxes, numbers and strings → inputs with
 * their limits, nested objects → fieldsets, arrays → repeatable groups, defaults from the schema. A new
 * server option appears here without UI code.
 *
 * The value holds only what the user set: a field shows the schema's default until it is changed, and
 * the body leaves it out (the server fills the same defaults), so an untouched option never overrides
 * the server's choice. An optional object is sent once the user includes it or sets a field inside.
 */
import type { JSX } from 'preact';
import { useT } from '../i18n/i18n';
import { type Components, fieldId, initialOf, kindOf, resolve, type Schema, suggestionsOf, withMember } from './schema';

export interface FieldProps {
  name: string;
  schema: Schema;
  components: Components;
  path: Array<string | number>;
  value: unknown;
  onChange: (value: unknown) => void;
  /** Field errors by dotted path (forms/schema.ts fieldErrors). */
  errors: Map<string, string>;
  required?: boolean;
  depth: number;
  /** Show a nested group unfolded (default: the first level only). */
  open?: boolean;
}

/** Bounds nesting on a schema that refers to itself (none does today): deeper levels are not shown. */
const MAX_DEPTH = 12;

export function Field(props: FieldProps): JSX.Element | null {
  const schema = resolve(props.schema, props.components);
  if (props.depth > MAX_DEPTH) return null;
  switch (kindOf(schema)) {
    case 'object':
      return <ObjectField {...props} schema={schema} />;
    case 'array':
      return <ArrayField {...props} schema={schema} />;
    case 'boolean':
      return <BooleanField {...props} schema={schema} />;
    default:
      return <InputField {...props} schema={schema} />;
  }
}

/** The schema's description without the component name it starts with (Operation_Coordinates: …), which tells a user nothing. */
function readable(description: string | undefined): string {
  return (description ?? '').replace(/^[A-Z][A-Za-z]*_[A-Za-z]+(\.[A-Za-z]+)?[:,]?\s*/, '');
}

function Hint({ schema, id, error }: { schema: Schema; id: string; error?: string | undefined }): JSX.Element {
  const description = readable(schema.description);
  return (
    <>
      {description && (
        <small class="hint" id={`${id}-hint`}>
          {description}
        </small>
      )}
      {error && (
        <small class="field-error" id={`${id}-error`} role="alert">
          {error}
        </small>
      )}
    </>
  );
}

function describedBy(schema: Schema, id: string, error: string | undefined): string | undefined {
  const ids = [readable(schema.description) ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return ids || undefined;
}

function ObjectField({ name, schema, components, path, value, onChange, errors, required, depth, open }: FieldProps): JSX.Element {
  const t = useT();
  const object = (value && typeof value === 'object' ? value : undefined) as Record<string, unknown> | undefined;
  const id = fieldId(path);
  const error = errors.get(path.join('.'));
  const members = Object.entries(schema.properties ?? {});
  const body = (
    <>
      <Hint schema={schema} id={id} error={error} />
      {members.length === 0 && <p class="hint">{t('form.noOptions')}</p>}
      {members.map(([key, member]) => (
        <Field
          key={key}
          name={key}
          schema={member}
          components={components}
          path={[...path, key]}
          value={object?.[key]}
          onChange={(next) => onChange(withMember(object, key, next))}
          errors={errors}
          required={schema.required?.includes(key) ?? false}
          depth={depth + 1}
        />
      ))}
    </>
  );
  if (depth === 0) return <div class="form-root">{body}</div>;
  // Nested groups start folded (a web service has hundreds of options); one with an error opens.
  const hasError = [...errors.keys()].some((key) => key === path.join('.') || key.startsWith(`${path.join('.')}.`));
  return (
    <details class="group" open={(open ?? depth === 1) || hasError}>
      <summary>
        <span class="group-name">{name}</span>
        {!required && object !== undefined && <span class="badge ok">{t('form.included')}</span>}
      </summary>
      <fieldset id={id} aria-invalid={error ? 'true' : undefined}>
        <legend class="visually-hidden">{name}</legend>
        {!required && (
          // Sends the group even when every option keeps its default (a group set by the user is sent anyway).
          <div class="field checkbox include">
            <input type="checkbox" id={`${id}-include`} checked={object !== undefined} onChange={(event) => onChange(event.currentTarget.checked ? (initialOf(schema) ?? {}) : undefined)} />
            <label for={`${id}-include`}>{t('form.include', { name })}</label>
          </div>
        )}
        {body}
      </fieldset>
    </details>
  );
}

function ArrayField({ name, schema, components, path, value, onChange, errors, depth }: FieldProps): JSX.Element {
  const t = useT();
  const items = Array.isArray(value) ? (value as unknown[]) : [];
  const itemSchema = resolve(schema.items, components);
  const id = fieldId(path);
  const error = errors.get(path.join('.'));
  const full = schema.maxItems !== undefined && items.length >= schema.maxItems;
  return (
    <fieldset class="array" id={id} aria-invalid={error ? 'true' : undefined}>
      <legend>{name}</legend>
      <Hint schema={schema} id={id} error={error} />
      <ol class="array-items">
        {items.map((item, index) => (
          // The position is the item's identity in the body: a key by index is right here.
          <li key={index}>
            <Field
              name={`${name} ${index + 1}`}
              schema={itemSchema}
              components={components}
              path={[...path, index]}
              value={item}
              onChange={(next) => onChange(withMember(items, index, next))}
              errors={errors}
              required
              depth={depth + 1}
            />
            <button type="button" class="secondary small" onClick={() => onChange(items.filter((_, other) => other !== index))}>
              {t('form.remove', { name: `${name} ${index + 1}` })}
            </button>
          </li>
        ))}
      </ol>
      <button type="button" class="secondary small" disabled={full} onClick={() => onChange([...items, initialOf(itemSchema)])}>
        {t('form.add', { name })}
      </button>
    </fieldset>
  );
}

function BooleanField({ name, schema, path, value, onChange, errors }: FieldProps): JSX.Element {
  const id = fieldId(path);
  const error = errors.get(path.join('.'));
  const checked = typeof value === 'boolean' ? value : schema.default === true;
  return (
    <div class={`field checkbox${error ? ' invalid' : ''}`}>
      <input
        type="checkbox"
        id={id}
        checked={checked}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy(schema, id, error)}
        onChange={(event) => onChange(event.currentTarget.checked)}
      />
      <label for={id}>{name}</label>
      <Hint schema={schema} id={id} error={error} />
    </div>
  );
}

function InputField({ name, schema, components, path, value, onChange, errors, required }: FieldProps): JSX.Element {
  const t = useT();
  const id = fieldId(path);
  const error = errors.get(path.join('.'));
  const kind = kindOf(schema);
  const shown = value !== undefined ? String(value) : schema.default !== undefined ? String(schema.default) : '';
  const common = {
    id,
    required: required && schema.default === undefined,
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-describedby': describedBy(schema, id, error),
  };
  let control: JSX.Element;
  if (kind === 'enum') {
    const options = (schema.enum ?? []).map(String);
    control = (
      <select {...common} value={shown} onChange={(event) => onChange(event.currentTarget.value === '' ? undefined : event.currentTarget.value)}>
        {schema.default === undefined && <option value="">{t('form.choose')}</option>}
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    );
  } else if (kind === 'integer' || kind === 'number') {
    control = (
      <input
        {...common}
        type="number"
        inputMode={kind === 'integer' ? 'numeric' : 'decimal'}
        step={kind === 'integer' ? 1 : 'any'}
        min={schema.minimum ?? schema.exclusiveMinimum}
        max={schema.maximum ?? schema.exclusiveMaximum}
        value={shown}
        onInput={(event) => {
          const text = event.currentTarget.value;
          onChange(text === '' ? undefined : Number(text));
        }}
      />
    );
  } else {
    const suggestions = kind === 'choice' ? suggestionsOf(schema, components) : [];
    // Base64 content (merge sources, images, key stores): a file picker reads it into the field.
    const takesFile = /base64/i.test(schema.description ?? '');
    control = (
      <>
        <input
          {...common}
          type="text"
          value={takesFile && shown.length > 200 ? `${shown.slice(0, 60)}… (${shown.length})` : shown}
          readOnly={takesFile && shown.length > 200}
          minLength={schema.minLength}
          maxLength={schema.maxLength}
          pattern={schema.pattern && browserPattern(schema.pattern)}
          list={suggestions.length > 0 ? `${id}-list` : undefined}
          onInput={(event) => onChange(event.currentTarget.value === '' && !required ? undefined : event.currentTarget.value)}
        />
        {suggestions.length > 0 && (
          <datalist id={`${id}-list`}>
            {suggestions.map((option) => (
              <option key={option} value={option} />
            ))}
          </datalist>
        )}
        {takesFile && (
          <input
            type="file"
            class="file-for-field"
            aria-label={t('form.fileFor', { name })}
            onChange={(event) => {
              const file = event.currentTarget.files?.[0];
              if (file) void readBase64(file).then(onChange);
            }}
          />
        )}
      </>
    );
  }
  return (
    <div class={`field${error ? ' invalid' : ''}`}>
      <label for={id}>
        {name}
        {common.required && <span aria-hidden="true"> *</span>}
      </label>
      {control}
      <Hint schema={schema} id={id} error={error} />
    </div>
  );
}

/**
 * The HTML pattern attribute is compiled with the v flag and anchored by the browser: a schema's
 * ^…$ anchors are dropped, and a pattern the browser cannot compile is left to the server to check.
 */
function browserPattern(pattern: string): string | undefined {
  const inner = pattern.replace(/^\^/, '').replace(/\$$/, '');
  try {
    new RegExp(`^(?:${inner})$`, 'v');
    return inner;
  } catch {
    return undefined;
  }
}

async function readBase64(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let offset = 0; offset < bytes.length; offset += 0x8000) binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  return btoa(binary);
}
