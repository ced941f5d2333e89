"""Makes text.txt, test.de, train.de and train.en from public-domain books.

    python3 make_text.py BOOKS

BOOKS is a folder holding the four files README.md names (de_alice.txt,
en_alice.txt, en_don_quixote.txt, de-grimm.txt). Writes, in the current
folder:

- text.txt: the first 1000 sentences of the German Alice, then the first
  1000 of the English one (the committed test lines);
- test.de: the German half of text.txt (for char.model);
- train.de: the rest of the German Alice, then Grimm's tales;
- train.en: the rest of the English Alice, then Don Quixote;

each training file at most 20000 lines and holding no line of text.txt.
A sentence is a line: paragraphs are joined and split after . ! ? (and a
closing quote) before a character that is not a lowercase letter; lines
of 5 to 40 words are kept, without Gutenberg's header and footer,
[Illustration]s, indented verse, headings or _italics_ marks.
"""

import os
import re
import sys

TEST, TRAIN = 1000, 20000

# A sentence ends after . ! or ? and any closing quotes, before a space
# and a character that is not a lowercase letter.
SPLIT = re.compile(r'(?:(?<=[.!?])|(?<=[.!?][»«"”’\'])|(?<=[.!?][»«"”’\'][»«"”’\']))\s+(?=[^a-zäöüß])')
ABBREV = re.compile(r'\b(Mr|Mrs|Dr|St|Sr|Sra|Hr|Fr|z\.B|u\.s\.w|d\.h)\.$')


def body(path):
    """The book's text without Project Gutenberg's header and footer."""
    with open(path, encoding='utf-8-sig') as f:
        text = f.read().replace('\r\n', '\n')
    start = re.search(r'^\*\*\* ?START OF TH(E|IS) PROJECT GUTENBERG.*$', text, re.M)
    end = re.search(r'^\*\*\* ?END OF TH(E|IS) PROJECT GUTENBERG', text, re.M)
    if start:
        text = text[start.end():end.start()]
    return text


def paragraphs(text, headings):
    """Blank-line separated blocks, joined; a line matching headings also
    ends a block and is dropped. Blocks of indented lines (verse) are
    dropped."""
    block = []
    for line in text.split('\n') + ['']:
        if not line.strip() or (headings and headings.match(line)):
            if block and not all(l.startswith('  ') for l in block):
                yield ' '.join(' '.join(block).replace('_', '').split())
            block = []
        else:
            block.append(line)


def sentences(path, headings=None):
    out = []
    for p in paragraphs(body(path), headings):
        if '[' in p or ']' in p:
            continue
        parts = []
        for s in SPLIT.split(p):
            if parts and ABBREV.search(parts[-1]):
                parts[-1] += ' ' + s
            else:
                parts.append(s)
        for s in parts:
            n = len(s.split())
            if 5 <= n <= 40 and re.search('[a-zäöüß]', s) and not re.search(r'http|www\.|Gutenberg|\.jpg|\*|CHAPTER|\d$', s):
                out.append(s)
    return out


def main(books):
    de_alice = sentences(os.path.join(books, 'de_alice.txt'))
    en_alice = sentences(os.path.join(books, 'en_alice.txt'))
    grimm = sentences(os.path.join(books, 'de-grimm.txt'), re.compile(r'^\d+\. \S'))
    faust = sentences(os.path.join(books, 'de_faust_1.txt'))
    cristo = sentences(os.path.join(books, 'en_monte_cristo.txt'))
    test = de_alice[:TEST] + en_alice[:TEST]
    assert len(test) == 2 * TEST, (len(de_alice), len(en_alice))
    seen = set(test)
    with open('text.txt', 'w', encoding='utf-8') as f:
        f.writelines(s + '\n' for s in test)
    with open('test.de', 'w', encoding='utf-8') as f:
        f.writelines(s + '\n' for s in de_alice[:TEST])
    for name, lines in [('train.de', de_alice[TEST:] + grimm + faust), ('train.en', en_alice[TEST:] + cristo)]:
        lines = [s for s in lines if s not in seen][:TRAIN]
        with open(name, 'w', encoding='utf-8') as f:
            f.writelines(s + '\n' for s in lines)
        print(name, len(lines), 'lines')


if __name__ == '__main__':
    main(sys.argv[1])
