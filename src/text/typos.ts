// How many typos apart two words are: insert, delete, replace, or a swap of
// two neighbouring letters, each counting one ("cots" is one from "cost").
// One function for every "did you mean": slash commands, file names.
export function typoDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i]!;
      row[j] = Math.min(d[i - 1]![j]! + 1, row[j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate `typed` most likely meant: the nearest within one typo for a
 * short word (five letters or fewer), two for a longer one; undefined when
 * none is that near. `_` is read as `-` (stream_json).
 */
export function nearestWord(typed: string, candidates: Iterable<string>): string | undefined {
  const word = typed.replaceAll("_", "-");
  let best: { name: string; d: number } | undefined;
  for (const name of candidates) {
    const d = typoDistance(word, name);
    // On a tie, a candidate the word begins ("of": off rather than on).
    const better = !best || d < best.d || (d === best.d && name.startsWith(word) && !best.name.startsWith(word));
    if (d <= (word.length <= 5 ? 1 : 2) && better) best = { name, d };
  }
  return best?.name;
}
