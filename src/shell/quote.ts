// Quoting a word for a command line that bunker prints for the person to run
// (`mv …` to restore a file, `bunker -C DIR -r ID`): plain words stay as they
// are, anything else goes in single quotes.
export function shellQuote(s: string): string {
  return /^[\w./@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
