package tasks_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/attnzoo/attnzoo/tasks"
)

// Build a task from the options of an experiment file's [task] table and
// load its data.
func Example() {
	task, err := tasks.New("reverse", tasks.Options{
		"min_len": int64(4), "max_len": int64(4), // as BurntSushi/toml decodes them
		"train": 100, "dev": 10, "test": 10,
	})
	if err != nil {
		log.Fatal(err)
	}
	data, err := task.Load(1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(data.Train), len(data.Dev), len(data.Test), data.Aligned)
	ex := data.Test[0]
	fmt.Println(len(ex.Src), len(ex.Tgt), ex.Tgt[0] == ex.Src[3])
	for _, l := range ex.Sure {
		fmt.Printf("%d-%d ", l.Src, l.Tgt)
	}
	fmt.Println()
	// Output:
	// 100 10 10 true
	// 4 4 true
	// 3-0 2-1 1-2 0-3
}

func ExampleNew_unknownKey() {
	_, err := tasks.New("reverse", tasks.Options{"max_lne": int64(12)})
	fmt.Println(err)
	// Output:
	// tasks: reverse: unknown key "max_lne" (have: dev, max_len, min_len, test, test_max_len, test_min_len, train, vocab)
}

func ExampleKeys() {
	keys, err := tasks.Keys("date")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Join(keys, ", "))
	// Output:
	// dev, max_year, min_year, test, train
}

func ExampleNames() {
	fmt.Println(tasks.Names())
	// Output:
	// [copy date reorder reverse sort synlang tsv]
}

func ExampleBuildVocab() {
	v := tasks.BuildVocab([][]string{{"der", "hund"}, {"der", "ball"}}, 1, 0)
	fmt.Println(v.Tokens())
	ids := v.Encode([]string{"der", "katze"})
	fmt.Println(ids, v.Decode(append(ids, tasks.EOSID)))
	// Output:
	// [<pad> <unk> <s> </s> der ball hund]
	// [4 1] [der <unk> </s>]
}

func ExampleParseTSV() {
	in := "Go.\tVa !\tCC-BY 2.0 (France) Attribution: tatoeba.org\nI'm OK.\tÇa va.\n"
	exs, err := tasks.ParseTSV(strings.NewReader(in), "fra.tsv", tasks.TSVFormat{Lowercase: true})
	if err != nil {
		log.Fatal(err)
	}
	for _, ex := range exs {
		fmt.Printf("%q -> %q\n", ex.Src, ex.Tgt)
	}
	_, err = tasks.ParseTSV(strings.NewReader("Go.\tVa !\nno tab\n"), "fra.tsv", tasks.TSVFormat{})
	fmt.Println(err)
	// Output:
	// ["go" "."] -> ["va" "!"]
	// ["i'm" "ok" "."] -> ["ça" "va" "."]
	// tasks: tsv: fra.tsv:2: no tab separating source and target
}

// The tsv task reads a file; relative paths are used as given.
func Example_tsv() {
	task, err := tasks.New("tsv", tasks.Options{"path": "../testdata/tasks/tiny.tsv", "dev": 0.1, "test": 0.1})
	if err != nil {
		log.Fatal(err)
	}
	data, err := task.Load(1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(data.Text.Pairs(), data.Aligned)
	fmt.Println(task.(tasks.Tokenizer).Tokenize("I’m   here!"))
	// Output:
	// 328 false
	// [i'm here !]
}
