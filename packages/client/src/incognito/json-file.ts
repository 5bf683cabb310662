// @relay402/client/incognito/json-file: notes kept in a file, for Node and Bun (node:fs). Kept out of the
// incognito entry so that a browser bundle of it never meets node:fs.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { type NoteStorage, notesFromJson, notesToJson } from "./incognito-notes.js";

/**
 * Notes in a JSON file (written to a temporary file and renamed, so a crash leaves the old or the new file, never
 * half of one; mode 0600). Secrets are stored in clear: put the file where only its owner can read it.
 */
export function jsonFileNoteStorage(path: string): NoteStorage {
  return {
    read: () => (existsSync(path) ? notesFromJson(readFileSync(path, "utf8")) : []),
    write(notes) {
      const temporary = `${path}.${process.pid}.tmp`;
      writeFileSync(temporary, notesToJson(notes), { mode: 0o600 });
      renameSync(temporary, path);
    },
  };
}
