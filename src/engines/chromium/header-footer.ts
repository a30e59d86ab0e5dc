/**
 * webPDF's header/footer placeholders as Chromium's header/footer template classes, which Chromium
 * fills on every page: `${html.pageNumber}` → `pageNumber`, `${html.totalPages}` → `totalPages`,
 * `${html.title}` → `title` (the document's title).
 */
export function withChromiumPlaceholders(html: string): string {
  return html
    .replaceAll('${html.pageNumber}', '<span class="pageNumber"></span>')
    .replaceAll('${html.totalPages}', '<span class="totalPages"></span>')
    .replaceAll('${html.title}', '<span class="title"></span>');
}
