// The suite's colour choice is what each test injects, not the machine's:
// CI systems set CI (and some FORCE_COLOR), which turns picocolors' rule (and
// bunker's, src/ui/colors.ts) to colour on. A test about colour sets it itself.
for (const name of ["CI", "FORCE_COLOR", "NO_COLOR"]) delete process.env[name];
