#!/usr/bin/env python3
"""The man page (docs/uetemu.1) against the command line it documents, so neither falls behind the other.

Usage: test_manpage.py UETEMU REPO_ROOT

- every command of `uetemu help` has a SYNOPSIS line (`uetemu NAME ...`) and an entry under COMMANDS;
- every option of each command's `uetemu NAME --help` is in that command's SYNOPSIS line (its short form, or its
  long form when it has none), and its long form is described in the page; `-- EAL-ARGS` likewise;
- every long option of the getopt tables in control/cli/*.c ({ "name", ..._argument, ... }) is in the page and in
  some command's --help;
- FILES names every config and doc `meson install` puts under the prefix (meson.build's lists), and the loaders.
Each failure names the option, command or file missing and where it has to go.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish  # noqa: E402


def plain(roff):
    """The page's text with roff escapes undone: \\- to -, font changes and zero-width marks dropped."""
    t = re.sub(r'\\f[BIRP]', '', roff)
    t = t.replace('\\-', '-').replace('\\%', '').replace('\\&', '').replace('\\(dq', '"')
    return t


def sections(roff):
    """{SECTION NAME: its lines} of the page."""
    out, name = {}, ''
    for line in roff.splitlines():
        m = re.match(r'\.SH\s+"?([^"]+)"?', line)
        if m:
            name = m.group(1).strip()
            out[name] = []
        elif name:
            out[name].append(line)
    return out


def synopsis_lines(lines):
    """{command: the words of its SYNOPSIS line}: the SYNOPSIS is cut at .br, each part names `uetemu COMMAND`."""
    out, cur = {}, []
    for line in lines + ['.br']:
        if line.strip() == '.br':
            words = ' '.join(plain(re.sub(r'^\.(B|I|BR|RB|IR|RI|BI|IB)\s+', '', x)) for x in cur).split()
            words = [w.strip('[]|.') for w in words]
            if len(words) >= 2 and words[0] == 'uetemu':
                out.setdefault(words[1], []).extend(words[2:])
            cur = []
        else:
            cur.append(line)
    return out


def helps(uetemu):
    """{command: [(short or None, long)], and '--' when it takes EAL args} from `uetemu help` and each --help."""
    top = subprocess.run([uetemu, 'help'], stdout=subprocess.PIPE, text=True).stdout
    block = top.split('commands:', 1)[1].split('\n\n', 1)[0]
    cmds = [m.group(1) for m in re.finditer(r'^  ([a-z][a-z-]*)', block, re.M)]
    out = {}
    for c in cmds:
        text = subprocess.run([uetemu, c, '--help'], stdout=subprocess.PIPE, text=True).stdout
        opts = []
        for m in re.finditer(r'^  (?:-(\w), )?--([a-z][a-z0-9-]*)', text, re.M):
            opts.append((m.group(1), m.group(2)))
        if re.search(r'^  -- EAL-ARGS', text, re.M):
            opts.append((None, '--'))
        out[c] = (opts, text)
    return out


def getopt_longs(root):
    """Every long option name of the getopt tables in control/cli/*.c, with the file it is in."""
    out = []
    d = os.path.join(root, 'control', 'cli')
    for f in sorted(os.listdir(d)):
        if f.endswith('.c'):
            src = open(os.path.join(d, f)).read()
            for m in re.finditer(r'\{\s*"([a-z][a-z0-9-]*)"\s*,\s*(?:no|required|optional)_argument', src):
                out.append((m.group(1), 'control/cli/' + f))
    return out


def installed(root):
    """The configs and docs meson.build installs (the names in its install_data lists)."""
    mb = open(os.path.join(root, 'meson.build')).read()
    cfgs = sorted(set(re.findall(r"'configs/([\w.-]+\.(?:yaml|pcap))'", mb)))
    docs = sorted(set(re.findall(r"'docs/([\w.-]+\.md)'", mb)))
    return cfgs, docs


def main():
    uetemu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    roff = open(os.path.join(root, 'docs', 'uetemu.1')).read()
    text = plain(roff)
    sec = sections(roff)
    syn = synopsis_lines(sec.get('SYNOPSIS', []))
    commands = plain('\n'.join(sec.get('COMMANDS', [])))
    described = plain('\n'.join(sec.get('COMMANDS', []) + sec.get('OPTIONS', [])))
    hs = helps(uetemu)
    check(len(hs) >= 8, 'uetemu help lists the commands (%s)' % ', '.join(hs))
    for c, (opts, _) in hs.items():
        check(c in syn, "docs/uetemu.1 SYNOPSIS has a line for 'uetemu %s' (a command of 'uetemu help')" % c)
        check(re.search(r'^\.(?:TP\n)?\.(?:B|BI|BR)\s+%s\b' % re.escape(c.replace('-', '\\-')),
                        '\n'.join(sec.get('COMMANDS', [])), re.M) is not None or
              re.search(r'^%s\b' % re.escape(c), commands, re.M) is not None,
              "docs/uetemu.1 COMMANDS describes 'uetemu %s'" % c)
        words = syn.get(c, [])
        for short, long_ in opts:
            if long_ == '--':
                check('--' in words and any('EAL-ARGS' in w for w in words),
                      "docs/uetemu.1 SYNOPSIS of 'uetemu %s' lacks [-- EAL-ARGS...] (in 'uetemu %s --help')" % (c, c))
                continue
            if long_ == 'help':
                continue  # every command takes --help; the SYNOPSIS says it once ('uetemu COMMAND --help')
            form = '-' + short if short else '--' + long_
            check(form in words or '--' + long_ in words,
                  "docs/uetemu.1 SYNOPSIS of 'uetemu %s' lacks option %s (in 'uetemu %s --help'): add "
                  "[%s ...] to its line" % (c, form if short is None else '-%s/--%s' % (short, long_), c, form))
            check(re.search(r'(?<![\w-])--%s(?![\w-])' % re.escape(long_), described) is not None,
                  "docs/uetemu.1 does not describe --%s of 'uetemu %s' under COMMANDS or OPTIONS" % (long_, c))
    all_help = '\n'.join(t for _, t in hs.values())
    for name, src in getopt_longs(root):
        check(re.search(r'(?<![\w-])--%s(?![\w-])' % re.escape(name), text) is not None,
              'option --%s of the getopt table in %s is missing from docs/uetemu.1' % (name, src))
        check(re.search(r'(?<![\w-])--%s(?![\w-])' % re.escape(name), all_help) is not None,
              "option --%s of the getopt table in %s is in no command's --help" % (name, src))
    files = plain('\n'.join(sec.get('FILES', [])))
    cfgs, docs = installed(root)
    check(len(cfgs) > 5 and len(docs) > 5, 'meson.build installs %d configs and %d docs' % (len(cfgs), len(docs)))
    for f in cfgs:
        check(f in files, 'docs/uetemu.1 FILES lacks the installed config %s (meson.build installs it)' % f)
    for f in docs:
        check(f in files, 'docs/uetemu.1 FILES lacks the installed doc %s (meson.build installs it)' % f)
    for f in ('bin/uetemu-ecn', 'bin/uetemu-trim', 'share/uetemu/bpf'):
        check(f in files, 'docs/uetemu.1 FILES lacks %s (meson install puts it there)' % f)
    return finish('manpage')


if __name__ == '__main__':
    sys.exit(main())
