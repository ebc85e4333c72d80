package clientjson

// ClaimShell exposes Owner.claimShell (the parsing path of Claim) to the
// external tests.
func (o *Owner) ClaimShell(command string) Claim { return o.claimShell(command) }
