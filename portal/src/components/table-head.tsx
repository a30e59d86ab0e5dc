import { useT } from '../i18n/i18n';
import type { MessageKey } from '../i18n/en';

/** A column heading: a message key, one read by screen readers only (a column of pictures or buttons), or a sign (`#`). */
export type Column = MessageKey | { key: MessageKey; hidden: true } | { text: string };

/** A table's heading row, one `th scope="col"` per column: every table of the portal heads its columns this way. */
export function TableHead({ columns }: { columns: readonly Column[] }) {
  const t = useT();
  return (
    <thead>
      <tr>
        {columns.map((column) =>
          typeof column === 'string' ? (
            <th key={column} scope="col">
              {t(column)}
            </th>
          ) : 'text' in column ? (
            <th key={column.text} scope="col">
              {column.text}
            </th>
          ) : (
            <th key={column.key} scope="col">
              <span class="visually-hidden">{t(column.key)}</span>
            </th>
          ),
        )}
      </tr>
    </thead>
  );
}
