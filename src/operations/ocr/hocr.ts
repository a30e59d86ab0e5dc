/**
 * One hOCR document from Tesseract's per-page ones: the head of the first, then every page's
 * `ocr_page` div in page order. Tesseract numbers the ids of every run from page 1; they are
 * renumbered to the page (`page_3`, `word_3_12`) and `ppageno` set, so ids stay unique.
 */
export function mergeHocr(pages: readonly { page: number; hocr: string }[]): string {
  if (pages.length === 0) return EMPTY;
  const first = pages[0]!.hocr;
  const bodyStart = first.indexOf('<body>');
  const head = bodyStart >= 0 ? first.slice(0, bodyStart + '<body>'.length) : EMPTY.slice(0, EMPTY.indexOf('</body>'));
  const divs = pages.map(({ page, hocr }) => {
    const start = hocr.indexOf('<body>');
    const end = hocr.lastIndexOf('</body>');
    const body = start >= 0 && end > start ? hocr.slice(start + '<body>'.length, end) : '';
    return body.replace(/id='(page|block|par|line|word|carea|textfloat|caption|photo|separator)_1(_\d+)?'/g, `id='$1_${page}$2'`).replace(/ppageno 0/g, `ppageno ${page - 1}`);
  });
  return `${head}${divs.join('')}</body>\n</html>\n`;
}

const EMPTY = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
 <head>
  <title></title>
  <meta http-equiv="Content-Type" content="text/html;charset=utf-8"/>
  <meta name='ocr-system' content='tesseract'/>
  <meta name='ocr-capabilities' content='ocr_page ocr_carea ocr_par ocr_line ocrx_word ocrp_wconf'/>
 </head>
<body>
</body>
</html>
`;
