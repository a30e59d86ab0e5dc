import { childElements, readXml, textContent, type XmlElement } from '../../xml/read.js';
import type { ProfileSource, ReferenceSource, RuleSource, VariableSource } from './source.js';

/**
 * Reads a veraPDF validation profile (`validationProfile.xsd`) into a ProfileSource. Used to generate
 * the checked-in JSON (scripts/pdfa-profiles.ts) and by the test that keeps the JSON equal to the XML;
 * the server itself never parses the XML (measured ~30–60 ms per profile with fast-xml-parser, against
 * ~1 ms for JSON.parse). A profile that does not have the expected shape is refused: it is shipped
 * data, and a rule read wrongly would be checked wrongly.
 */
export function readProfileXml(xml: string): ProfileSource {
  const root = readXml(xml).find((element) => localName(element) === 'profile');
  if (root === undefined) throw new Error('not a validation profile: no <profile> element');
  const details = child(root, 'details');
  const rules = child(root, 'rules');
  const variables = child(root, 'variables');
  return {
    flavour: required(root.attributes.flavour, 'the profile flavour'),
    name: details === undefined ? '' : text(child(details, 'name')),
    description: details === undefined ? '' : text(child(details, 'description')),
    rules: rules === undefined ? [] : children(rules, 'rule').map(readRule),
    variables: variables === undefined ? [] : children(variables, 'variable').map(readVariable),
  };
}

function readRule(rule: XmlElement): RuleSource {
  const id = child(rule, 'id');
  if (id === undefined) throw new Error('a rule without <id>');
  const clause = required(id.attributes.clause, 'a rule clause');
  const testNumber = Number(id.attributes.testNumber);
  if (!Number.isInteger(testNumber)) throw new Error(`rule ${clause}: bad testNumber ${id.attributes.testNumber}`);
  const error = child(rule, 'error');
  const args = error === undefined ? undefined : child(error, 'arguments');
  const references = child(rule, 'references');
  const test = text(child(rule, 'test')).trim();
  if (test === '') throw new Error(`rule ${clause}-${testNumber}: no test`);
  return {
    object: required(rule.attributes.object, `the object of rule ${clause}-${testNumber}`),
    deferred: rule.attributes.deferred === 'true',
    tags: (rule.attributes.tags ?? '')
      .split(',')
      .map((tag) => tag.trim())
      .filter((tag) => tag !== ''),
    specification: id.attributes.specification ?? '',
    clause,
    testNumber,
    description: text(child(rule, 'description')).trim(),
    test,
    message: error === undefined ? '' : text(child(error, 'message')).trim(),
    arguments: args === undefined ? [] : children(args, 'argument').map((arg) => textContent(arg).trim()),
    references: references === undefined ? [] : children(references, 'reference').map(readReference),
  };
}

function readReference(reference: XmlElement): ReferenceSource {
  return { specification: reference.attributes.specification ?? '', clause: reference.attributes.clause ?? '' };
}

function readVariable(variable: XmlElement): VariableSource {
  const name = required(variable.attributes.name, 'a variable name');
  return {
    name,
    object: required(variable.attributes.object, `the object of variable ${name}`),
    defaultValue: text(child(variable, 'defaultValue')).trim() || 'null',
    value: required(text(child(variable, 'value')).trim() || undefined, `the value of variable ${name}`),
  };
}

/** Element names without a prefix (the profiles use a default namespace; a prefixed copy reads the same). */
function localName(element: XmlElement): string {
  return element.name.slice(element.name.indexOf(':') + 1);
}

function children(parent: XmlElement, name: string): XmlElement[] {
  return childElements(parent).filter((element) => localName(element) === name);
}

function child(parent: XmlElement, name: string): XmlElement | undefined {
  return children(parent, name)[0];
}

function text(element: XmlElement | undefined): string {
  return element === undefined ? '' : textContent(element);
}

function required(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new Error(`${what} is missing`);
  return value;
}

/** The checked-in form: the ProfileSource as one line of JSON. */
export function profileJson(source: ProfileSource): string {
  return `${JSON.stringify(source)}\n`;
}
