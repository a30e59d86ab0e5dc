/**
 * Page numbers and dates in header/footer text, in Acrobat's notation (which webPDF's header and
 * footer metadata mirror): a `<<…>>` token is
 *
 * - a date when it consists of d/dd, m/mm/mmm/mmmm and yy/yyyy parts with separators
 *   (`<<dd.mm.yyyy>>`, `<<m/d/yy>>`, `<<mmmm d, yyyy>>`);
 * - a page number when it holds a number: the number stands for the page number, a separate `n`
 *   for the page count (`<<1>>`, `<<Page 1 of n>>`, `<<1/n>>`);
 * - left as it is otherwise.
 */
export interface PlaceholderValues {
  page: number;
  pageCount: number;
  date: { year: number; month: number; day: number };
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DATE_TOKEN = /^(?:d{1,2}|m{1,4}|y{2}|y{4})(?:[\s./,-]+(?:d{1,2}|m{1,4}|y{2}|y{4}))*$/;

export function expandPlaceholders(text: string, values: PlaceholderValues): string {
  return text.replace(/<<([^<>]*)>>/g, (whole, inner: string) => {
    if (DATE_TOKEN.test(inner)) return formatDate(inner, values.date);
    if (/\d/.test(inner)) {
      return inner.replace(/\d+/, String(values.page)).replace(/(^|[\s/()[\]{}<>%])n(?=$|[\s/()[\]{}<>%])/g, (_, before: string) => `${before}${values.pageCount}`);
    }
    return whole;
  });
}

function formatDate(format: string, date: PlaceholderValues['date']): string {
  return format.replace(/d{1,2}|m{1,4}|y{4}|y{2}/g, (part) => {
    switch (part) {
      case 'd':
        return String(date.day);
      case 'dd':
        return String(date.day).padStart(2, '0');
      case 'm':
        return String(date.month);
      case 'mm':
        return String(date.month).padStart(2, '0');
      case 'mmm':
        return MONTHS[date.month - 1]!.slice(0, 3);
      case 'mmmm':
        return MONTHS[date.month - 1]!;
      case 'yy':
        return String(date.year % 100).padStart(2, '0');
      default:
        return String(date.year).padStart(4, '0');
    }
  });
}
