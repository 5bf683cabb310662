import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

// The README, the client package's README and the guides in docs/ link to each other and to files of the repository: every relative link
// must reach a file, and an anchor a heading of that file (GitHub's slugs), so moving a section breaks this test.
const root = resolve(import.meta.dir, "..", "..");
const pages = [
  "README.md",
  "packages/client/README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

const anchorsOf = (file: string) =>
  new Set(
    readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => slug(line.replace(/^#+ /, ""))),
  );

test("every relative link of the README and docs/ reaches a file, and its anchor a heading", () => {
  const broken: string[] = [];
  for (const page of pages) {
    const text = readFileSync(join(root, page), "utf8").replace(/```[\s\S]*?```/g, "");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!target || /^[a-z]+:/.test(target)) continue; // http(s), mailto
      const [path, anchor] = target.split("#") as [string, string | undefined];
      const file = path === "" ? join(root, page) : resolve(dirname(join(root, page)), path);
      if (!existsSync(file)) broken.push(`${page}: ${target} (no such file)`);
      else if (anchor && file.endsWith(".md") && !anchorsOf(file).has(anchor))
        broken.push(`${page}: ${target} (no such heading)`);
    }
  }
  expect(broken).toEqual([]);
});

test("the README is a guide of about 300 lines at most, and nothing points outside the repository", () => {
  expect(readFileSync(join(root, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(300);
  for (const page of pages)
    expect([page, readFileSync(join(root, page), "utf8").includes("../shared")]).toEqual([page, false]);
});
