package templates

// ParseHeader reads the render header on the first line of body (or the
// "_generated_by" member of a rendered JSON file) and returns it with ok true;
// ok is false when body carries no hookwarden render header (a file we did not
// render).
func ParseHeader(body []byte) (Header, bool) {
	return Header{}, false
}
