package policy

import (
	"slices"
	"strings"
)

// Git libraries in interpreter code.
//
// A program can make a commit without the git command: a library that
// writes the commit object and moves the branch itself. pygit2 and nodegit
// (libgit2) run no hooks; isomorphic-git runs none; GitPython's
// IndexFile.commit and dulwich's do_commit/porcelain.commit run only the
// hooks under the git directory's hooks/ folder (GitPython git/index/fun.py
// hook_path; dulwich hooks.py), never core.hooksPath, which is where hook
// managers install theirs. Such a call is judged as git plumbing past the
// hooks (git-plumbing), as git commit-tree is. Libraries that run the git
// command are judged by the command they run: GitPython's repo.git.SUB(...)
// (git/cmd.py: each positional argument one word, a keyword argument k=v
// --k=v, or -k v for one letter, True a bare flag, underscores as dashes)
// and simple-git's commit(message, files, options), whose options object's
// keys are git's options.

// gitLibCall judges a git library call of kind k (ckGitLib, ckGitCmd,
// ckGitOpts) named name with args (pos: the positional ones).
func (s *codeScanner) gitLibCall(k callKind, name string, args, pos []carg) {
	switch k {
	case ckGitLib:
		s.j.hits.add(RuleGitPlumbing)
	case ckGitCmd:
		s.runner = true
		s.shellCode(s.gitPythonArgv(name, args, pos))
	case ckGitOpts:
		if s.importsModule("isomorphic-git", "nodegit") {
			// import('isomorphic-git').then(g => g.commit(...)): the
			// module's binding is not followed, its name in the code is
			s.j.hits.add(RuleGitPlumbing)
		}
		for _, a := range pos {
			for _, key := range []string{"--no-verify", "-n", "--no-verify=true"} {
				if _, ok := objMember(a.toks, key); ok {
					s.j.hits.add(RuleGitNoVerify)
				}
			}
		}
	}
}

// gitPythonArgv returns the argv GitPython's repo.git.SUB(...) runs:
// git, SUB (underscores as dashes), each keyword argument as an option
// (GitPython git/cmd.py transform_kwarg: one letter -k VALUE, else
// --k=VALUE, True a bare flag, False or None left out), then each
// positional argument as one word.
func (s *codeScanner) gitPythonArgv(name string, args, pos []carg) cval {
	sub := name[strings.LastIndexByte(name, '.')+1:]
	v := cval{isList: true, known: true, list: []string{"git", strings.ReplaceAll(sub, "_", "-")}}
	for _, a := range args {
		if a.kw == "" {
			continue
		}
		val := s.eval(a.toks, 0)
		opt := strings.ReplaceAll(a.kw, "_", "-")
		text := val.text()
		switch {
		case len(a.toks) == 1 && (a.toks[0].val == "False" || a.toks[0].val == "None"):
			continue
		case len(a.toks) == 1 && a.toks[0].val == "True":
			if len(opt) == 1 {
				v.list = append(v.list, "-"+opt)
			} else {
				v.list = append(v.list, "--"+opt)
			}
			continue
		case len(opt) == 1:
			v.list = append(v.list, "-"+opt, text)
		default:
			v.list = append(v.list, "--"+opt+"="+text)
		}
		v.known = v.known && val.known
	}
	for _, a := range pos {
		val := s.eval(a.toks, 0)
		v.list = append(v.list, val.text())
		v.known = v.known && val.known
	}
	return v
}

// importsModule reports whether the code holds one of modules as a string
// literal (a require, import or import() of it).
func (s *codeScanner) importsModule(modules ...string) bool {
	for _, t := range s.toks {
		if t.kind == tkStr && slices.Contains(modules, strLit(t)) {
			return true
		}
	}
	return false
}
