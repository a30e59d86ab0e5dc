/**
 * The eight permission flags of webPDF's `Operation_Encrypt` / `Operation_Recipient` and their bits
 * in the PDF permission word P (ISO 32000-1 Table 22, bit 1 = least significant).
 */
export interface PermissionFlags {
  canAssemble: boolean;
  canExtractContent: boolean;
  canExtractForAccessibility: boolean;
  canFillInForm: boolean;
  canModify: boolean;
  canModifyAnnotations: boolean;
  canPrint: boolean;
  canPrintHighRes: boolean;
}

export const PERMISSION_FLAGS: readonly (keyof PermissionFlags)[] = [
  'canAssemble',
  'canExtractContent',
  'canExtractForAccessibility',
  'canFillInForm',
  'canModify',
  'canModifyAnnotations',
  'canPrint',
  'canPrintHighRes',
];

/** The flags as the options give them; absent members are false (the reference's default). */
export function permissionFlags(options: Partial<Record<keyof PermissionFlags, unknown>> | undefined): PermissionFlags {
  const flags = {} as PermissionFlags;
  for (const name of PERMISSION_FLAGS) flags[name] = options?.[name] === true;
  return flags;
}

/**
 * Whether printing is allowed at all. High-resolution printing (bit 12) only means something with
 * printing (bit 3) allowed, so `canPrintHighRes` alone allows printing in full quality.
 */
export function printLevel(flags: PermissionFlags): 'none' | 'low' | 'full' {
  if (flags.canPrintHighRes) return 'full';
  return flags.canPrint ? 'low' : 'none';
}

/**
 * P for security handler revisions 3 and later, as a signed 32-bit integer: the reserved bits 7–8
 * and 13–32 are 1, the eight permission bits as the flags say.
 */
export function permissionWord(flags: PermissionFlags): number {
  let p = 0xfffff0c0;
  const print = printLevel(flags);
  if (print !== 'none') p |= 1 << 2;
  if (print === 'full') p |= 1 << 11;
  if (flags.canModify) p |= 1 << 3;
  if (flags.canExtractContent) p |= 1 << 4;
  if (flags.canModifyAnnotations) p |= 1 << 5;
  if (flags.canFillInForm) p |= 1 << 8;
  if (flags.canExtractForAccessibility) p |= 1 << 9;
  if (flags.canAssemble) p |= 1 << 10;
  return p | 0;
}
