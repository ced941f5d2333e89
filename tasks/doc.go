// Package tasks provides the translation tasks attnzoo trains on: toy tasks
// whose gold alignments are known by construction (copy, reverse, sort, date,
// reorder, synlang) and real parallel text read from files (tsv: a TSV, or
// line-aligned plain-text files, held as token ids). Tasks
// sit behind a registry shaped like database/sql's: each registers itself
// from its own init, and New builds one by name from the [task] table of an
// experiment file.
//
// Conventions:
//   - Src and Tgt are token strings; Vocab maps them to ids, with ids 0–3
//     reserved for <pad>, <unk>, <s> and </s>. Vocabularies come from Train only.
//   - Gold links are metrics.Link values (0-based source and target positions),
//     sorted by target position, then source position.
//   - New validates every option before anything is generated; Load(seed) is
//     deterministic: each split draws from its own math/rand/v2 PCG stream
//     seeded with seed, so the same options and seed give identical Data.
//
// The tasks and their keys, with defaults (the task's source file has the details):
//
//	copy, reverse, sort  min_len 3, max_len 10, test_max_len max_len, test_min_len min_len, vocab 10,
//	                     train 10000, dev 500, test 500
//	date                 min_year 1950, max_year 2049, train, dev, test as above
//	reorder              max_adj 2, test_max_adj max_adj, adverb 0.3, pp 0.3,
//	                     train, dev, test as above
//	synlang              vocab 2000, zipf 1.0, max_len 40, test_max_len max_len,
//	                     clause 0.5, front 0.3, max_adj 2, adverb 0.3, pp 0.3,
//	                     past 0.4, plural 0.3, definite 0.6, phrasal 0.2, swap 0,
//	                     train 20000, dev 500, test 1000
//	tsv                  path (one file split at random; dev 0.1, test 0.1 are
//	                     fractions of its source sentences) or train, dev, test
//	                     (paths: fixed splits), src_lang, tgt_lang (a split is
//	                     then PATH.src_lang + PATH.tgt_lang unless PATH is a
//	                     file), test_align, test_align_base 0, tokenizer "word",
//	                     lowercase true, reverse false, max_len 0, min_count 1,
//	                     max_vocab 0
package tasks
