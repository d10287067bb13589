/**
 * The rule for texts users read (docs, spec descriptions, TSDoc, messages): they state the rule
 * itself, so they never cite sections of the source description or issue numbers, never point
 * at a file outside the repository, and never speak of the machine the authors work on.
 */

/** RFC citations keep their sections: "RFC 6750 §3, §3.1", "§10.2.3 of RFC 9110". */
const RFC_SECTIONS = /RFC \d+(?:(?:,|,? and)? ?§\s?\d+(?:\.\d+)*)+|§\s?\d+(?:\.\d+)* of RFC \d+/g;

const FORBIDDEN = [
  /source spec/i,
  /source-spec\.md|\.\.\/shared\//i,
  /§\s?\d/,
  /\bissue #?\d+/i,
  /\b(?:this|our|the authors'?) (?:machine|box|vm|laptop)s?\b/i,
  /\b\d+-core (?:vm|machine|box)\b/i,
  /\bthis machine's\b/i,
];

/** True when `text` cites the source by section, an issue number, or the authors' machine. */
export function authorsMachineOrSourceCitation(text: string): boolean {
  const withoutRfc = text.replace(RFC_SECTIONS, '');
  return FORBIDDEN.some((pattern) => pattern.test(withoutRfc));
}
