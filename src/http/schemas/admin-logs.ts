import Type from 'typebox';
import { SUPPORT_GROUPS } from '../../operations/admin/support-package.js';

const DATE = '^(\\d{4}-\\d{2}-\\d{2})?$';

export const LogQuery = Type.Object({
  date: Type.Optional(Type.String({ pattern: DATE, default: '', description: 'yyyy-MM-dd (UTC day); empty: today' })),
});

export const SupportQuery = Type.Object({
  group: Type.Optional(Type.Array(Type.Enum([...SUPPORT_GROUPS]), { default: ['logs'], description: 'Admin_SupportEntryGroup values, the parameter repeated per value' })),
  start: Type.Optional(Type.String({ pattern: DATE, default: '', description: 'first day of the logs (yyyy-MM-dd); empty: today' })),
  end: Type.Optional(Type.String({ pattern: DATE, default: '', description: 'last day of the logs (yyyy-MM-dd); empty: today' })),
});
