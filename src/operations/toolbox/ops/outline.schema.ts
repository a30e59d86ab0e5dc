import Type from 'typebox';
import { defaulted, type Options } from '../../option-schema.js';
import { ActionEvent, bool, color, opt, str } from '../schema-types.js';

/**
 * `Operation_ToolboxOutline.outline` (reference §10.9.17): bookmarks. Paths name items by their
 * visible titles, separated by "/" and starting with "/" (`/Chapter 1/Section 2`; a "/" inside a
 * title is written `\/`). The sub-operations run in the order clear → remove → add, and the items
 * of `add` one after the other, so an item can be placed under one added just before.
 */
export const outlineOptions = Type.Object(
  {
    add: opt(
      Type.Object(
        {
          item: opt(
            Type.Array(
              Type.Object(
                {
                  itemName: opt(str('the title shown in the bookmarks panel (required)')),
                  path: opt(str('the item this one is placed relative to; "" or "/" = the outline root')),
                  pathPosition: defaulted(
                    Type.Enum(['before', 'inplace', 'after'], {
                      default: 'inplace',
                      description: 'Operation_AddPosition: inplace = as the last child of the item at path; before/after = as its sibling',
                    }),
                  ),
                  actions: opt(Type.Array(ActionEvent, { description: 'run in order when the item is clicked' })),
                  bold: opt(bool(false)),
                  italic: opt(bool(false)),
                  color: opt(color('#000000')),
                  isOpen: opt(bool(false, 'the item shows its children')),
                },
                { description: 'Operation_Item' },
              ),
            ),
          ),
        },
        { description: 'Operation_AddToolboxOutline' },
      ),
    ),
    remove: opt(
      Type.Object(
        { item: opt(Type.Array(Type.Object({ path: opt(str('the item to remove, with its children')) }, { description: 'Operation_ItemReference' }))) },
        { description: 'Operation_RemoveToolboxOutline' },
      ),
    ),
    clear: opt(Type.Object({}, { description: 'Operation_Clear: removes the whole outline' })),
  },
  { description: 'Operation_ToolboxOutline.outline' },
);

export type OutlineOptions = Options<typeof outlineOptions>;
