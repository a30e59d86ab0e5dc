import Type from 'typebox';
import { defaulted, type Options } from '../../option-schema.js';

const flag = (value: boolean, description: string) => defaulted(Type.Boolean({ default: value, description }));

/**
 * `Operation_ToolboxPrint.print` (reference §10.9.11): sends pages to the server's printer. The
 * server prints only when its administrator configured a print command (`toolbox.printCommand`);
 * otherwise the operation is refused (-104). The document itself is not changed.
 */
export const printOptions = Type.Object(
  {
    autoRotate: flag(true, "pages are turned to the paper's orientation, as the print system does by default; false is refused (-104)"),
    centerInPage: flag(false, "true is refused (-104): the server does not know the printer's paper and margins"),
    copies: defaulted(Type.Integer({ format: 'int32', default: 1, minimum: 1, description: 'at most 100' })),
    dpi: defaulted(Type.Integer({ format: 'int32', default: 0, minimum: 0, description: 'resolution of modes raster and image (0 = 300, at most 600); ignored in mode default' })),
    expandToMargins: flag(false, "true is refused (-104): the server does not know the printer's paper and margins"),
    jobName: defaulted(Type.String({ default: 'webPDF Print Job', description: 'title of the print job' })),
    mode: defaulted(
      Type.Enum(['default', 'raster', 'image'], {
        default: 'default',
        description: 'Operation_PrintMode: default sends the PDF; raster and image send pictures of the pages (rendered on the server at dpi)',
      }),
    ),
    pages: defaulted(Type.String({ default: '', description: 'pages to print: "1-3,5", "last"; "" or "*" = all' })),
    printerName: defaulted(Type.String({ default: '', description: 'the printer; "" = the configured or default one' })),
    shrinkToMargins: flag(false, "true is refused (-104): the server does not know the printer's paper and margins"),
  },
  { description: 'Operation_ToolboxPrint.print' },
);

export type PrintOptions = Options<typeof printOptions>;
