// What a session id given on the command line must look like, checked before
// anything else runs (so `bunker -r zz` says what is wrong with the id, not
// with stdin). Pure: no store is opened.

/** Why `idOrPrefix` cannot name a session, or null when it can (4 or more letters and digits). */
export function sessionIdProblem(idOrPrefix: string): string | null {
  const wanted = idOrPrefix.trim().toLowerCase();
  if (/^[0-9a-z]{1,3}$/.test(wanted)) return `give at least 4 characters of the session id, not "${idOrPrefix}" (bunker --resume lists them)`;
  if (!/^[0-9a-z]{4,}$/.test(wanted)) return `"${idOrPrefix}" is not a session id (ids are letters and digits; bunker --resume lists them)`;
  return null;
}
