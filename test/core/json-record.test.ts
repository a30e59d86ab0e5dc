import { describe, expect, it } from 'vitest';
import { jsonRecord } from '../../src/core/json-record.js';

const member = (value: { id?: unknown }) => typeof value.id === 'string';

describe('jsonRecord', () => {
  it('gives the value of a text that parses and passes the check, nothing otherwise', () => {
    expect(jsonRecord('{"id":"n1","load":0.5}', member)).toEqual([{ id: 'n1', load: 0.5 }]);
    expect(jsonRecord('{"id":7}', member)).toEqual([]);
    expect(jsonRecord('{"id":"n1"', member)).toEqual([]);
    expect(jsonRecord('null', member)).toEqual([]);
    expect(jsonRecord('"n1"', member)).toEqual([]);
    expect(['{"id":"a"}', 'garbage', '{"id":"b"}'].flatMap((text) => jsonRecord(text, member))).toEqual([{ id: 'a' }, { id: 'b' }]);
  });
});
