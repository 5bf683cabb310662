import { Kind, type TSchema } from "@sinclair/typebox";

/** Levenshtein distance, for "did you mean": config names are short, so the quadratic table is nothing. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1]?.toLowerCase() === b[j - 1]?.toLowerCase() ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/** The known name nearest to `name`, when it is near enough to be a misspelling (a third of its letters). */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  const allowed = Math.max(2, Math.floor(name.length / 3));
  return best && best.distance <= allowed ? best.name : undefined;
}

const where = (path: string) => (path === "" ? "the top level" : path);

/**
 * Every setting of `value` that `schema` does not know, at every depth (objects, arrays of objects, transformed and
 * optional fields), as "name: unknown setting on <path>; did you mean <nearest>?". Only names are quoted: a name
 * is the operator's own typing, never a secret's value. A record keyed by free names (none in the config today)
 * would need its own rule.
 */
export function unknownSettings(schema: TSchema, value: unknown, path = ""): string[] {
  if (value === null || typeof value !== "object") return [];
  if (schema[Kind] === "Array" && Array.isArray(value)) {
    return value.flatMap((item, i) => unknownSettings(schema.items as TSchema, item, `${path}.${i}`));
  }
  if (schema[Kind] === "Union") {
    // The first member that knows every setting wins; else the object members' names are pooled.
    const members = (schema.anyOf as TSchema[]).filter((member) => member[Kind] === "Object");
    if (members.length === 0) return [];
    const each = members.map((member) => unknownSettings(member, value, path));
    return each.find((problems) => problems.length === 0) ?? (each[0] as string[]);
  }
  if (schema[Kind] !== "Object" || Array.isArray(value)) return [];
  const properties = schema.properties as Record<string, TSchema>;
  const known = Object.keys(properties);
  const problems: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    const property = properties[key];
    const childPath = path === "" ? key : `${path}.${key}`;
    if (property) {
      problems.push(...unknownSettings(property, child, childPath));
      continue;
    }
    const near = nearestName(key, known);
    problems.push(`${key}: unknown setting on ${where(path)}${near ? `; did you mean ${near}?` : ""}`);
  }
  return problems;
}
