/** The start could not open the database; the message names the setting and the cause, never the URL (it may hold a password). */
export class DatabaseUnavailableError extends Error {}
