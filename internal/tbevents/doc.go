// Package tbevents writes TensorBoard event files: scalars and PNG images,
// the records TensorBoard reads beside PyTorch's SummaryWriter's.
//
// A file is a sequence of TFRecord records (record.go), each holding one
// tensorflow.Event protobuf (event.go) encoded by hand: the handful of
// fields written here need only varints, fixed-width numbers and
// length-delimited bytes. Every event is written to the file as it is
// made, so a killed run keeps every event it wrote.
package tbevents
