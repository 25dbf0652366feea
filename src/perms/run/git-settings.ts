// The one table of git settings whose value git runs: the command judge
// reads it for `git -c KEY=VALUE` and `git config KEY VALUE`, and
// git-config.ts for the keys a repository's config may not hold unasked.
// Its own module so that reading a config does not load the judge's tables.
import type { GitRuns, ProgramEntry } from "./programs.ts";

/**
 * Settings (`git -c KEY=VALUE`, or written by `git config KEY VALUE` for a
 * later git to obey) whose value git runs. Names are keys in
 * lower case with `*` for any subsection (`diff.*.command`). A pager or
 * fsmonitor set to a boolean runs nothing. Match: under --allow-run=git
 * the line asks. Not match: it runs unasked.
 */
export const GIT_PROGRAM_SETTINGS: (ProgramEntry & { runs: GitRuns })[] = [
  {
    names: ["core.pager", "pager.*", "core.editor", "sequence.editor", "core.sshcommand", "core.gitproxy", "core.askpass", "core.alternaterefscommand", "diff.external", "diff.*.command", "diff.*.textconv", "interactive.difffilter", "difftool.*.cmd", "mergetool.*.cmd", "merge.*.driver", "filter.*.clean", "filter.*.smudge", "filter.*.process", "credential.helper", "credential.*.helper", "trailer.*.command", "trailer.*.cmd", "sendemail.sendmailcmd", "sendemail.tocmd", "sendemail.cccmd", "sendemail.smtpserver", "imap.tunnel", "uploadpack.packobjectshook", "remote.*.uploadpack", "remote.*.receivepack", "man.*.cmd", "browser.*.cmd", "web.browser", "submodule.*.update"],
    runs: "shell", why: "the value is a command git runs (a pager, editor, diff, filter, helper, transport, …)",
    match: ["git -c diff.external=./x.sh diff", "git config alias.x '!touch p'", "git config --file evil/config core.pager 'touch p'", "git config set core.sshCommand 'touch p'", "git -c core.pager='touch p' log", "git -c core.sshCommand='touch p' fetch", "git -c pager.log='touch p' log", "git -c filter.x.clean='touch p' add .", "git -c credential.helper='!touch p' push", "git -c core.pager=less log", "git -c CORE.PAGER='touch p' log"],
    notMatch: ["git -c core.pager=cat log", "git -c pager.log=false log", "git -c color.ui=never log", "git -c user.name=x commit -m x", "git config user.name x", "git config --get core.pager"],
  },
  { names: ["alias.*"], runs: "git", why: "an alias starting with `!` is a shell command; any other is git words (which may hand git a program in turn)", match: ["git -c alias.x='!touch p' x", "git -c alias.d='difftool -x \"touch p\"' d"], notMatch: ["git -c alias.st=status st"] },
  { names: ["gpg.program", "gpg.*.program", "gpg.ssh.defaultkeycommand", "core.fsmonitor", "difftool.*.path", "mergetool.*.path", "man.*.path", "browser.*.path"], runs: "program", why: "the value is a program git runs (to sign, to watch files, as a tool)", match: ["git -c gpg.program=./x.sh log --show-signature", "git -c core.fsmonitor=./x.sh status"], notMatch: ["git -c core.fsmonitor=false status"] },
  { names: ["include.path", "includeif.*.path", "core.hookspath", "init.templatedir", "protocol.allow", "protocol.*.allow", "core.worktree"], runs: "opaque", why: "loads settings or hooks from a file or folder, or lets URLs like `ext::` run commands", match: ["git -c include.path=x.cfg log", "git -c core.hooksPath=hk commit -m x", "git -c protocol.ext.allow=always clone 'ext::sh -c touch% p' d"], notMatch: ["git -c log.date=iso log"] },
];
