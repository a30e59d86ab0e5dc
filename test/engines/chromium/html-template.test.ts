import { describe, expect, it } from 'vitest';
import { HtmlEngineError } from '../../../src/engines/chromium/errors.js';
import { fillHtmlTemplate, parseTemplateData } from '../../../src/engines/chromium/html-template.js';

const fill = (template: string, data: unknown = {}) => fillHtmlTemplate(template, data);
const failure = (template: string, data: unknown = {}): HtmlEngineError => {
  try {
    fill(template, data);
  } catch (error) {
    if (error instanceof HtmlEngineError) return error;
    throw error;
  }
  throw new Error('expected a failure');
};

describe('HTML templates (the FreeMarker subset of converter html.useAsTemplate)', () => {
  it('lists custom.data as webPDF templates do, and the data under its own names', () => {
    const data = {
      data: [
        { title: 'Elefant', link: 'https://e.example/?a=1&b=2' },
        { title: 'Löwe', link: '/l' },
      ],
    };
    const html = fill('<#list custom.data as d><a href="${d.link}">${d.title}</a>;</#list>|<#list data as x>${x?counter}/${data?size}</#list>', data);
    expect(html).toBe('<a href="https://e.example/?a=1&amp;b=2">Elefant</a>;<a href="/l">Löwe</a>;|1/22/2');
  });

  it('escapes inserted text, unless ?no_esc', () => {
    expect(fill('${t} ${t?no_esc}', { t: '<b>"x" & \'y\'</b>' })).toBe('&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt; <b>"x" & \'y\'</b>');
  });

  it('supports if/elseif/else, comparisons, defaults, ?? and loop variables', () => {
    const template =
      '<#-- a comment ${never} --><#list items as i><#if i.n gt 2>big<#elseif i.n == 2>two<#else>small</#if><#if i?has_next>,</#if></#list>' +
      ' ${missing!"none"} ${missing!}<#if missing??>x<#else>absent</#if> ${name?upper_case} <#list [] as n>never<#else>empty</#list>';
    expect(() => fill(template, { items: [{ n: 1 }, { n: 2 }, { n: 3 }], name: 'quire' })).toThrow(/unexpected "\["/);
    const ok = template.replace('<#list [] as n>', '<#list none as n>');
    expect(fill(ok, { items: [{ n: 1 }, { n: 2 }, { n: 3 }], name: 'quire', none: [] })).toBe('small,two,big none absent QUIRE empty');
  });

  it('lists an object by its values', () => {
    expect(fill('<#list o as v>${v}</#list>', { o: { a: 1, b: 'two' } })).toBe('1two');
  });

  it('refuses an undefined value, unknown directives and built-ins, and unclosed tags, naming the line', () => {
    expect(failure('line 1\n${nothing.here}').message).toMatch(/line 2\).*nothing\.here is undefined/);
    expect(failure('<#assign x = 1>').message).toContain('<#assign> is not supported');
    expect(failure('${x?eval}', { x: '1' }).message).toContain('?eval is not supported');
    expect(failure('<#list a as b>').message).toContain('<#list> is not closed');
    expect(failure('${o}', { o: { a: 1 } }).message).toContain('cannot be inserted as text');
    expect(failure('<#if x>y</#if>', { x: 'yes' }).message).toContain('not true or false');
  });

  it('stops a template that would run away', () => {
    const nested = '<#list a as x><#list a as y><#list a as z>.</#list></#list></#list>';
    expect(failure(nested, { a: Array.from({ length: 200 }, (_, i) => i) }).message).toMatch(/steps|larger/);
  });

  it('reads the data as Base64 JSON; malformed data is an invalid option', () => {
    expect(parseTemplateData(Buffer.from('{"a":[1]}').toString('base64'))).toEqual({ a: [1] });
    expect(parseTemplateData(undefined)).toEqual({});
    expect(() => parseTemplateData(Buffer.from('{a:').toString('base64'))).toThrow(/not Base64 of JSON/);
    expect(() => parseTemplateData('%%%')).toThrow(/not Base64/);
  });
});
