#!/usr/bin/env python3
"""Keeps the tree's references to its documentation true.

Usage: doc-refs.py SOURCE_ROOT

A page that is split, or a section that moves to another page, leaves
references behind in comments, help text, tests and other pages. This
checks, over every text file of the source tree (build folders, .git,
docs/img and RMARaceBench's vendored cases left out):
  (a) every relative link of a Markdown file, [text](path#anchor), reaches
      a file, and its anchor a heading of that file (GitHub's slugs);
  (b) every mention of docs/NAME.md names a page that exists;
  (c) such a mention followed by a quoted title, `docs/c.md, "Limits"`,
      `docs/repl.md ("Control channel")` or `docs/c.md "rmalab test"`,
      names a heading of that page, or a bold run-in title of it
      (**Blocking calls.**), or part of one. A mention may wrap across
      lines of a comment.
Prints each broken reference with its file; exits 1 on any.
"""
import os
import re
import sys

root = os.path.abspath(sys.argv[1])
SKIP = {os.path.join('tests', 'rmaracebench', 'MPIRMA'), os.path.join('docs', 'img')}


def text_files():
    for top, dirs, names in os.walk(root):
        rel = os.path.relpath(top, root)
        keep = []
        for d in dirs:
            path = os.path.normpath(os.path.join(rel, d))
            full = os.path.join(top, d)
            if d == '.git' or path in SKIP or (rel == '.' and d.startswith('build')):
                continue
            if os.path.exists(os.path.join(full, 'meson-private')):
                continue  # a build folder under another name
            keep.append(d)
        dirs[:] = sorted(keep)
        for name in sorted(names):
            path = os.path.join(top, name)
            try:
                with open(path, encoding='utf-8') as f:
                    yield os.path.relpath(path, root), f.read()
            except (UnicodeDecodeError, OSError):
                continue  # not text


def titles(path):
    """The headings of a Markdown page (as written, and as GitHub's anchor
    slugs, numbered when repeated) and its bold run-in titles."""
    heads, slugs, seen, fence = [], set(), {}, False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.startswith('```'):
                fence = not fence
            if fence:
                continue
            m = re.match(r'#{1,6} (.*)', line)
            if m:
                heads.append(' '.join(m.group(1).split()))
                s = re.sub(r'[^\w\- ]', '', m.group(1).strip().lower()).replace(' ', '-')
                n = seen.get(s, 0)
                seen[s] = n + 1
                slugs.add(s if n == 0 else '%s-%d' % (s, n))
            bold = re.findall(r'\*\*([^*]+)\*\*', line)
            heads += [' '.join(b.rstrip('.:').split()) for b in bold]
    return heads, slugs


cache = {}


def page_titles(path):
    if path not in cache:
        cache[path] = titles(path)
    return cache[path]


failures, links, mentions = [], 0, 0
for rel, text in text_files():
    if rel.endswith('.md'):
        body = re.sub(r'```.*?```', '', text, flags=re.S)
        for m in re.finditer(r'\]\(([^)\s]+)\)', body):
            url = m.group(1)
            if re.match(r'[a-z]+:', url):
                continue
            links += 1
            path, _, anchor = url.partition('#')
            target = os.path.normpath(os.path.join(root, os.path.dirname(rel), path)) if path \
                else os.path.join(root, rel)
            if not os.path.exists(target):
                failures.append('%s: link %s: no such file' % (rel, url))
            elif anchor and target.endswith('.md') and anchor not in page_titles(target)[1]:
                failures.append('%s: link %s: no such heading' % (rel, url))
    # Lines joined without their comment leaders, so that a mention may wrap.
    flat = re.sub(r'\n[ \t]*(?:\*(?!\*)|#(?![#!])|--|//)?[ \t]*', ' ', text)
    flat = flat.replace('\\(dq', '"').replace('\\"', '"')
    mention = r'(?<![\w/.-])(?:\.\./)*docs/([a-z0-9][\w-]*\.md)(?:(?:, | \(|, \(| )"([^"]+)")?'
    for m in re.finditer(mention, flat):
        mentions += 1
        page = os.path.join(root, 'docs', m.group(1))
        if not os.path.exists(page):
            failures.append('%s: docs/%s: no such page' % (rel, m.group(1)))
        elif m.group(2):
            want = ' '.join(m.group(2).split())
            if not any(want in h or want.startswith(h) for h in page_titles(page)[0]):
                failures.append('%s: docs/%s, "%s": no such heading or title there'
                                % (rel, m.group(1), want))

for f in failures:
    print('FAIL: ' + f)
print('doc-refs: %d relative links, %d mentions of docs/ pages, %d broken'
      % (links, mentions, len(failures)))
sys.exit(1 if failures else 0)
