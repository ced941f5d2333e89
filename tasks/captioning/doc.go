// Package captioning provides the image captioning data of attnzoo:
// generated scenes of coloured shapes whose objects have known boxes
// (shapes), a folder of real images with their captions (images), and
// precomputed region features from an .npy array (features). Tasks sit
// behind a registry shaped like database/sql's, as in package tasks: each
// registers itself from its own init, and New builds one by name from the
// [task] table of an experiment file.
//
// Conventions:
//   - An Image is C×H×W float32, channel-major, each 8-bit value v stored
//     as (v/255 − NormMean)/NormStd; images are resized to size×size by
//     area averaging after a centre crop (see Preprocess).
//   - Features are S×D float32, one row per region; Grid gives the regions'
//     rows and columns when they form a grid, region r·cols + c at row r.
//   - A Box is in fractions of the image, y down, and converts to
//     metrics.Region for attention localisation.
//   - Captions are lowercased word tokens; the vocabulary (ids 0–3 the
//     specials of package tasks) comes from Train only. Train has one
//     example per caption, Dev and Test one per image with all references.
//   - New validates every option before anything is generated or read;
//     Load(seed) is deterministic. Nothing is dropped silently: bad input
//     is an error naming the file and line, and what Load leaves out on
//     purpose is listed in Data.Notes.
//
// The tasks and their keys, with defaults (the task's source file has the details):
//
//	shapes    size 64, min_objects 1, max_objects 3, noise "plain",
//	          train 5000, dev 200, test 200 (images), captions_per_image 3,
//	          unseen [] ("colour shape" combinations held out for test)
//	images    dir, captions (required), format "auto", size 64, crop true,
//	          train_list, dev_list, test_list, dev 0.1, test 0.1, max_len 0,
//	          min_count 1, max_vocab 0, skip_bad false
//	features  npy, captions (required), format "auto", ids, grid √S,
//	          train_list, dev_list, test_list, dev 0.1, test 0.1, max_len 0,
//	          min_count 1, max_vocab 0
package captioning
