import Type from 'typebox';
import { base64FileData } from './file-data.schema.js';
import { defaulted, type Options } from '../../option-schema.js';

/**
 * `Operation_ToolboxPortfolio.portfolio` (reference §10.9.19): a PDF portfolio (collection) with
 * folders. Steps run as `remove`, `add`, `sort`, then `extract` (the selected files become the
 * result: the file itself, or a ZIP that keeps the folder structure). Paths are folder paths from
 * the root: "/" or "" is the root, "/reports/2024" a folder in it.
 */
const str = (description?: string) => defaulted(Type.String({ default: '', ...(description ? { description } : {}) }));

const Selection = Type.Object(
  {
    fileName: str('a file in the folder; "" = the whole folder'),
    path: str('the folder ("" or "/" = root)'),
  },
  { description: 'Operation_PortfolioSelection' },
);

const PortfolioFile = Type.Object(
  {
    creator: str('who made the file (a Creator column of the portfolio)'),
    data: base64FileData('Operation_PortfolioFileData', Type.Optional(Type.String({ description: 'Base64 content' }))),
    fileName: defaulted(Type.String({ default: '', maxLength: 255, description: 'required; a file of the same name in the same folder is replaced' })),
    mimeType: str('e.g. "application/pdf"; "" = from the file name\'s extension'),
    path: str('the folder to put it in (created when missing)'),
  },
  { description: 'Operation_PortfolioFile' },
);

export const portfolioOptions = Type.Object(
  {
    add: Type.Optional(
      Type.Object(
        {
          file: Type.Optional(Type.Array(PortfolioFile, { maxItems: 10_000 })),
          folder: Type.Optional(Type.Array(Type.Object({ path: str('e.g. "/reports/2024"; missing parents are created') }, { description: 'Operation_PortfolioFolder' }), { maxItems: 10_000 })),
          initialDocumentPath: str('folder of the file the portfolio opens with'),
          initialFileName: str('the file the portfolio opens with'),
        },
        { description: 'Operation_PortfolioAdd' },
      ),
    ),
    extract: Type.Optional(
      Type.Object(
        {
          selection: Type.Optional(Type.Array(Selection, { maxItems: 10_000, description: 'empty: every file' })),
          singleFileAsZip: defaulted(Type.Boolean({ default: true, description: 'false: a single selected file becomes the result as it is' })),
        },
        { description: 'Operation_PortfolioExtract' },
      ),
    ),
    remove: Type.Optional(
      Type.Object(
        {
          initialDocumentPath: str('folder of the file the portfolio opens with afterwards'),
          initialFileName: str('the file the portfolio opens with afterwards'),
          selection: Type.Optional(
            Type.Array(Selection, { maxItems: 10_000, description: 'the files or folders to remove ({"path":"/"} removes everything); may be empty only to change the initial document' }),
          ),
        },
        { description: 'Operation_PortfolioRemove' },
      ),
    ),
    sort: Type.Optional(
      Type.Object(
        {
          namedCriteria: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  ascending: defaulted(Type.Boolean({ default: true })),
                  displayName: str('the column title; "" keeps it'),
                  key: defaulted(
                    Type.Enum(['fileName', 'description', 'size', 'creationDate', 'modificationDate', 'compressedSize', 'order'], {
                      default: 'fileName',
                      description: 'Operation_PortfolioSortPredefinedCriterionKey (order: the order files were added in)',
                    }),
                  ),
                },
                { description: 'Operation_PortfolioSortPredefinedCriterion' },
              ),
              { maxItems: 16, description: 'empty: the portfolio is no longer sorted' },
            ),
          ),
        },
        { description: 'Operation_PortfolioSort' },
      ),
    ),
  },
  { description: 'Operation_ToolboxPortfolio.portfolio' },
);

export type PortfolioOptions = Options<typeof portfolioOptions>;
