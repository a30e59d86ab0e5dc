/** Header field values in the form both readers deliver them. */

/** One mailbox for display, the way mailparser writes them: `"Name" <address>`, or whichever part there is. */
export function formatMailbox(name: string | undefined, address: string | undefined): string {
  const shownName = name?.trim() ?? '';
  const shownAddress = address?.trim() ?? '';
  if (shownName === '' || shownName === shownAddress) return shownAddress;
  return shownAddress === '' ? `"${shownName}"` : `"${shownName}" <${shownAddress}>`;
}

/** A date from a header value, or undefined if it does not parse (mailparser would substitute "now"). */
export function parseMailDate(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
