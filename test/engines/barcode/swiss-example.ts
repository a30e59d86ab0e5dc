import type { SwissBillData } from '../../../src/engines/barcode/swiss-bill.js';

/** The guidelines' example: a QR-IBAN with a QR reference. */
export const EXAMPLE: SwissBillData = {
  amount: 1994.75,
  currency: 'CHF',
  creditor: { account: 'CH44 3199 9123 0008 8901 2', name: 'Robert Schneider AG', address: 'Rue du Lac', buildingNumber: 1268, zip: 2501, city: 'Biel', country: 'CH' },
  debtor: { name: 'Pia-Maria Rutschmann-Schnyder', address: 'Grosse Marktgasse', buildingNumber: 28, zip: 9400, city: 'Rorschach', country: 'CH' },
  reference: '21 00000 00003 13947 14300 09017',
};

/** Its QR payload, element by element (guidelines §4.3: version 0200, coding 1, structured addresses, 7 empty ultimate-creditor lines). */
export const EXAMPLE_PAYLOAD = [
  'SPC',
  '0200',
  '1',
  'CH4431999123000889012',
  'S',
  'Robert Schneider AG',
  'Rue du Lac',
  '1268',
  '2501',
  'Biel',
  'CH',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '1994.75',
  'CHF',
  'S',
  'Pia-Maria Rutschmann-Schnyder',
  'Grosse Marktgasse',
  '28',
  '9400',
  'Rorschach',
  'CH',
  'QRR',
  '210000000003139471430009017',
  '',
  'EPD',
].join('\n');
