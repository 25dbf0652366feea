// Session ids: a new one, and what one given on the command line must look
// like, checked before anything else runs (so `bunker -r zz` says what is
// wrong with the id, not with stdin). No store is opened.

/** Why `idOrPrefix` cannot name a session, or null when it can (4 or more letters and digits). */
export function sessionIdProblem(idOrPrefix: string): string | null {
  const wanted = idOrPrefix.trim().toLowerCase();
  if (/^[0-9a-z]{1,3}$/.test(wanted)) return `give at least 4 characters of the session id, not "${idOrPrefix}" (bunker --resume lists them)`;
  if (!/^[0-9a-z]{4,}$/.test(wanted)) return `"${idOrPrefix}" is not a session id (ids are letters and digits; bunker --resume lists them)`;
  return null;
}

const ID_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** A fresh session id: 10 characters of a 32-letter alphabet (50 bits). */
export function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  // A plain loop: Array.from with a map function cost 0.3 ms the first time, in every run.
  let id = "";
  for (let i = 0; i < bytes.length; i++) id += ID_ALPHABET[bytes[i]! % ID_ALPHABET.length];
  return id;
}
