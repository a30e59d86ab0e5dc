import { PDFArray, PDFDict, PDFName, PDFRef, PDFString, type PDFDocument } from '@cantoo/pdf-lib';

/**
 * An optional content group that shows its content on screen and/or in print (PDF 32000-1, 8.11):
 * its /Usage says so, and the default configuration applies the usage automatically (/AS) for
 * the View and Print events; a group hidden on screen also starts OFF.
 */
export function visibilityGroup(document: PDFDocument, name: string, visibility: { onScreen: boolean; onPrint: boolean }): PDFRef {
  const context = document.context;
  const state = (on: boolean) => (on ? 'ON' : 'OFF');
  const group = context.register(
    context.obj({
      Type: 'OCG',
      Name: PDFString.of(name),
      Usage: { View: { ViewState: state(visibility.onScreen) }, Print: { PrintState: state(visibility.onPrint) } },
    }),
  );
  const catalog = document.catalog;
  const properties = context.lookupMaybe(catalog.get(PDFName.of('OCProperties')), PDFDict) ?? context.obj({});
  catalog.set(PDFName.of('OCProperties'), properties);
  const groups = arrayIn(properties, 'OCGs');
  groups.push(group);
  const defaults = context.lookupMaybe(properties.get(PDFName.of('D')), PDFDict) ?? context.obj({});
  properties.set(PDFName.of('D'), defaults);
  if (!visibility.onScreen) arrayIn(defaults, 'OFF').push(group);
  const autoStates = arrayIn(defaults, 'AS');
  autoStates.push(context.obj({ Event: 'View', OCGs: [group], Category: ['View'] }));
  autoStates.push(context.obj({ Event: 'Print', OCGs: [group], Category: ['Print'] }));
  return group;
}

function arrayIn(dict: PDFDict, key: string): PDFArray {
  const existing = dict.context.lookupMaybe(dict.get(PDFName.of(key)), PDFArray);
  if (existing) return existing;
  const created = dict.context.obj([]);
  dict.set(PDFName.of(key), created);
  return created;
}

/**
 * Removes groups from the document's optional content configuration (the groups of removed
 * backgrounds), so that readers do not list layers that no longer show anything.
 */
export function dropGroups(document: PDFDocument, groups: ReadonlySet<PDFRef>): void {
  if (groups.size === 0) return;
  const context = document.context;
  const properties = context.lookupMaybe(document.catalog.get(PDFName.of('OCProperties')), PDFDict);
  if (!properties) return;
  const prune = (array: PDFArray | undefined) => {
    if (!array) return;
    for (let i = array.size() - 1; i >= 0; i--) {
      const item = array.get(i);
      if (item instanceof PDFRef && groups.has(item)) array.remove(i);
      else if (item instanceof PDFArray) prune(item);
      else {
        // /AS entries are dictionaries that list groups.
        const dict = context.lookupMaybe(item, PDFDict);
        if (dict) {
          const listed = context.lookupMaybe(dict.get(PDFName.of('OCGs')), PDFArray);
          prune(listed);
          if (listed && listed.size() === 0) array.remove(i);
        }
      }
    }
  };
  prune(context.lookupMaybe(properties.get(PDFName.of('OCGs')), PDFArray));
  const configurations = [
    context.lookupMaybe(properties.get(PDFName.of('D')), PDFDict),
    ...(context.lookupMaybe(properties.get(PDFName.of('Configs')), PDFArray)?.asArray() ?? []).map((c) => context.lookupMaybe(c, PDFDict)),
  ];
  for (const configuration of configurations) {
    if (!configuration) continue;
    for (const key of ['ON', 'OFF', 'Order', 'AS', 'Locked', 'RBGroups']) prune(context.lookupMaybe(configuration.get(PDFName.of(key)), PDFArray));
  }
}
