"""Dat3M's ``LitmusPTX.g4`` (with the ``LitmusAssertions.g4`` and ``BaseLexer.g4`` it imports),
translated to Lark, to check that a ``.litmus`` text is one Dat3M's parser accepts.

Why Lark and not the ANTLR runtime: the check must run in CI with pip-installable packages
only.  The ANTLR Python runtime is on PyPI, but a parser must be *generated* from the .g4 by
the ANTLR tool, which is Java; a generated parser committed here would be several thousand
lines nobody can regenerate without Java.  Lark is pure Python, and the translation below is
short enough to compare rule by rule with the .g4 (``../shared/dat3m-ptx/LitmusPTX.g4``).

Fidelity:
- Lexing is ANTLR's, done by :func:`tokenize` rather than Lark's lexer: at each position the
  longest match wins, ties go to the rule defined first (LitmusPTX's own tokens, then
  LitmusAssertions', then BaseLexer's, the order ANTLR gives imported rules), so ``ld`` is the
  keyword and ``ldx`` an Identifier, ``r0`` a Register, ``0x1f`` a HexDigitSequence;
  whitespace, newlines, ``(* ... *)`` and ``<< ... >>`` are skipped.  A character no token
  matches is dropped, as ANTLR's lexer does (it reports a token recognition error and goes on;
  Dat3M's parser bails out on parse errors only), so a description may hold any character.
- Parsing is LALR(1) over the .g4's rules, transcribed one to one (names in snake case), but
  for ``assertion``, whose left-recursive alternatives are stratified into and/or/unary levels
  (the same strings; precedence only picks a parse tree); ``~(LBrace)*`` in ``main`` is a
  rule accepting any token but ``LBrace``.
- Semantic actions and return values of the .g4 are dropped (they build Dat3M's program,
  they accept or reject nothing).
"""

from __future__ import annotations

import re
from functools import lru_cache

from lark import Lark, Token
from lark.exceptions import LarkError
from lark.lexer import Lexer

# (token name, regex) in ANTLR rule order: LitmusPTX.g4, then LitmusAssertions.g4, then
# BaseLexer.g4.  Literal tokens are escaped regexes.
_LITERALS_PTX = [
    ("LOCATIONS", "locations"),
    ("REGISTER", r"r[0-9]+"), ("LABEL", r"LC[0-9]+"),
]
_KEYWORDS_PTX = [
    ("LOAD", "ld"), ("TEXTURELOAD", "tld"), ("SURFACELOAD", "suld"), ("CONSTANTLOAD", "cold"),
    ("STORE", "st"), ("SUSTORE", "sust"), ("ATOM", "atom"), ("SURFACEATOM", "suatom"),
    ("RED", "red"), ("SURFACERED", "sured"), ("FENCE", "fence"), ("BARRIER", "bar"),
    ("SYNC", "sync"), ("ARRIVE", "arrive"), ("CTA", "cta"), ("GPU", "gpu"), ("SYS", "sys"),
    ("WEAK", "weak"), ("RELAXED", "relaxed"), ("ACQUIRE", "acquire"), ("RELEASE", "release"),
    ("ACQ_REL", "acq_rel"), ("SC", "sc"), ("ADD", "add"), ("SUB", "sub"), ("MUL", "mul"),
    ("DIV", "div"), ("AND", "and"), ("OR", "or"), ("XOR", "xor"), ("CAS", "cas"),
    ("EXCH", "exch"), ("PROXY", "proxy"), ("GENERIC", "generic"), ("CONSTANT", "constant"),
    ("SURFACE", "surface"), ("TEXTURE", "texture"), ("ALIASES", "aliases"), ("ALIAS", "alias"),
    ("BEQ", "beq"), ("BNE", "bne"), ("BLT", "blt"), ("BGT", "bgt"), ("BLE", "ble"), ("BGE", "bge"),
    ("GOTO", "goto"),
]
_ASSERTIONS = [
    ("LITMUSLANGUAGE", "PTX|ptx"),
    ("ASSERTIONLISTEXPECTATIONTEST", "tso|cc|optic|default"),
    ("ASSERTIONAND", r"/\\"), ("ASSERTIONOR", r"\\/"),
    ("ASSERTIONEXISTS", "exists"), ("ASSERTIONFINAL", "final"), ("ASSERTIONFORALL", "forall"),
    ("ASSERTIONFILTER", "filter"), ("ASSERTIONNOT", r"~|not"), ("ASSERTIONWITH", "with"),
    ("THREADIDENTIFIER", r"P[0-9]+"),
    ("EQUALSEQUALS", "=="), ("NOTEQUALS", "!="), ("LESSEQUALS", "<="), ("GREATEREQUALS", ">="),
    ("IDENTIFIER", r"_*[A-Za-z]+[A-Za-z0-9_]*"), ("DIGITSEQUENCE", r"[0-9]+"),
    ("HEXDIGITSEQUENCE", r"0x[0-9a-fA-F]+"),
]
_SKIPPED = [r"[ \t]+", r"\r\n?|\n", r"\(\*.*?\*\)", r"<<.*?>>"]
_BASE = [
    ("EXCL", "!"), ("QUOT", '"'), ("NUM", "#"), ("DOLLAR", "$"), ("PERCENT", "%"), ("AMP", "&"),
    ("APOS", "'"), ("LPAR", "("), ("RPAR", ")"), ("AST", "*"), ("PLUS", "+"), ("COMMA", ","),
    ("MINUS", "-"), ("PERIOD", "."), ("SLASH", "/"), ("COLON", ":"), ("SEMI", ";"), ("LESS", "<"),
    ("EQUALS", "="), ("GREATER", ">"), ("QUESTION", "?"), ("AT", "@"), ("LBRACKET", "["),
    ("RBRACKET", "]"), ("BSLASH", "\\"), ("LBRACE", "{"), ("RBRACE", "}"), ("CIRC", "^"),
    ("TILDE", "~"), ("BAR", "|"), ("UNDERSCORE", "_"),
]
# ANTLR's order: LitmusLanguage is declared last in LitmusPTX.g4, Locations first; the
# keywords in between.  Assertions' tokens (Identifier ...) come after all of LitmusPTX's.
TOKENS: list[tuple[str, str]] = (
    _LITERALS_PTX[:1] + _LITERALS_PTX[1:] + [(n, re.escape(k)) for n, k in _KEYWORDS_PTX]
    + [_ASSERTIONS[0]] + _ASSERTIONS[1:] + [(n, re.escape(c)) for n, c in _BASE]
)
_COMPILED = [(name, re.compile(rx, re.S)) for name, rx in TOKENS]
_SKIP = [re.compile(rx, re.S) for rx in _SKIPPED]


class GrammarError(ValueError):
    """The text is not in LitmusPTX.g4's language; ``line``/``column`` are 1-based."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(f"{line}:{column}: {message}")
        self.line, self.column = line, column


def tokenize(text: str) -> list[Token]:
    """ANTLR's tokens of ``text``: longest match, ties to the rule declared first; skipped
    tokens dropped."""
    out: list[Token] = []
    pos, line, col = 0, 1, 1
    while pos < len(text):
        best_len, best_name = 0, None
        for rx in _SKIP:
            m = rx.match(text, pos)
            if m and m.end() - pos > best_len:
                best_len, best_name = m.end() - pos, ""
        for name, rx in _COMPILED:
            m = rx.match(text, pos)
            if m and m.end() - pos > best_len:
                best_len, best_name = m.end() - pos, name
        if best_name is None:  # ANTLR: token recognition error, the character is dropped
            best_len, best_name = 1, ""
        piece = text[pos:pos + best_len]
        if best_name:
            out.append(Token(best_name, piece, start_pos=pos, line=line, column=col))
        newlines = piece.count("\n")
        if newlines:
            line += newlines
            col = len(piece) - piece.rfind("\n")
        else:
            col += len(piece)
        pos += best_len
    return out


_RULES = r"""
start: LITMUSLANGUAGE not_lbrace* variable_declarator_list program variable_list? assertion_filter? assertion_list?

variable_declarator_list: LBRACE variable_declarator? (SEMI variable_declarator)* SEMI? RBRACE SEMI?
variable_declarator: variable_declarator_location | variable_declarator_register
    | variable_declarator_register_location | variable_declarator_location_location
    | variable_declarator_proxy
variable_declarator_location: location EQUALS constant
variable_declarator_register: thread_id COLON register EQUALS constant
variable_declarator_register_location: thread_id COLON register EQUALS AMP? location
variable_declarator_location_location: location EQUALS AMP? location
variable_declarator_proxy: location AT proxy_type ALIASES location
proxy_type: GENERIC | CONSTANT | TEXTURE | SURFACE

variable_list: LOCATIONS LBRACKET variable (SEMI variable)* SEMI? RBRACKET
variable: location | thread_id COLON register

program: thread_declarator_list instruction_list
thread_declarator_list: thread_scope (BAR thread_scope)* SEMI
thread_scope: thread_id AT scope_id
scope_id: CTA cta_id COMMA GPU gpu_id
instruction_list: instruction_row+
instruction_row: instruction (BAR instruction)* SEMI
instruction: | store_instruction | load_instruction | fence_instruction | atom_instruction
    | red_instruction | branch_cond | jump | label

store_instruction: store PERIOD mo (PERIOD scope)? location COMMA value
load_instruction: local_value | local_add | local_sub | local_mul | local_div | load_location
local_value: load register COMMA value
local_add: ADD register COMMA value COMMA value
local_sub: SUB register COMMA value COMMA value
local_mul: MUL register COMMA value COMMA value
local_div: DIV register COMMA value COMMA value
load_location: load PERIOD mo (PERIOD scope)? register COMMA location

fence_instruction: fence_physic | fence_proxy | fence_alias | barrier
fence_physic: FENCE PERIOD mo PERIOD scope
fence_proxy: FENCE PERIOD PROXY PERIOD proxy_type
fence_alias: FENCE PERIOD PROXY PERIOD ALIAS
barrier: BARRIER PERIOD CTA PERIOD barrier_mode constant (COMMA value (COMMA value)?)?
barrier_mode: SYNC | ARRIVE

atom_instruction: atom_op | atom_cas | atom_exchange
atom_op: atom PERIOD mo PERIOD scope PERIOD operation register COMMA location COMMA value
atom_cas: atom PERIOD mo PERIOD scope PERIOD CAS register COMMA location COMMA value COMMA value
atom_exchange: atom PERIOD mo PERIOD scope PERIOD EXCH register COMMA location COMMA value
red_instruction: red PERIOD mo PERIOD scope PERIOD operation location COMMA value

branch_cond: cond value COMMA value COMMA LABEL
jump: GOTO LABEL
label: LABEL COLON

scope: CTA | GPU | SYS
location: IDENTIFIER
register: REGISTER
operation: ADD | SUB | MUL | DIV | AND | OR | XOR
cond: BEQ | BNE | BGE | BLE | BGT | BLT
cta_id: DIGITSEQUENCE
gpu_id: DIGITSEQUENCE
value: constant | register
mo: WEAK | RELAXED | ACQUIRE | RELEASE | ACQ_REL | SC
load: LOAD | TEXTURELOAD | SURFACELOAD | CONSTANTLOAD
store: STORE | SUSTORE
atom: ATOM | SURFACEATOM
red: RED | SURFACERED

// LitmusAssertions.g4; LitmusPTX.g4's own assertionValue overrides the imported one (ANTLR:
// a rule of the main grammar replaces an imported rule of the same name)
assertion_filter: ASSERTIONFILTER assertion SEMI?
assertion_list: ASSERTIONEXISTS assertion SEMI?
    | ASSERTIONNOT ASSERTIONEXISTS assertion SEMI?
    | ASSERTIONFORALL assertion SEMI?
    | ASSERTIONFINAL assertion SEMI? assertion_list_expectation_list
// assertion: '(' assertion ')' | '~' assertion | assertion '/\' assertion
//          | assertion '\/' assertion | assertionValue assertionCompare assertionValue
// stratified (same strings: precedence picks a parse tree, not what is accepted) so that the
// grammar is LALR(1)
assertion: assertion_and (ASSERTIONOR assertion_and)*
assertion_and: assertion_unary (ASSERTIONAND assertion_unary)*
assertion_unary: LPAR assertion RPAR
    | ASSERTIONNOT assertion_unary
    | assertion_value assertion_compare assertion_value
assertion_value: location | thread_id COLON register | constant
constant: MINUS? DIGITSEQUENCE | HEXDIGITSEQUENCE
assertion_list_expectation_list: ASSERTIONWITH assertion_list_expectation+
assertion_list_expectation: ASSERTIONLISTEXPECTATIONTEST COLON ASSERTIONNOT? ASSERTIONEXISTS SEMI
assertion_compare: EQUALS | EQUALSEQUALS | NOTEQUALS | GREATEREQUALS | LESSEQUALS | LESS | GREATER
thread_id: THREADIDENTIFIER | DIGITSEQUENCE
"""


class _Tokens(Lexer):
    """Hands Lark the tokens :func:`tokenize` made."""

    def __init__(self, conf: object) -> None:
        pass

    def lex(self, data: str) -> list[Token]:  # type: ignore[override]
        return tokenize(data)


@lru_cache(maxsize=1)
def parser() -> Lark:
    """The LALR(1) parser of the translated grammar."""
    names = [n for n, _ in TOKENS]
    decls = "\n".join(f"%declare {n}" for n in names)
    not_lbrace = "not_lbrace: " + " | ".join(n for n in names if n != "LBRACE")
    return Lark(_RULES + not_lbrace + "\n" + decls, parser="lalr", lexer=_Tokens)


def check_text(text: str) -> None:
    """Return if LitmusPTX.g4 accepts ``text``; raise :class:`GrammarError` (line, column) if not."""
    try:
        parser().parse(text)
    except GrammarError:
        raise
    except LarkError as e:
        line, column = getattr(e, "line", 0) or 0, getattr(e, "column", 0) or 0
        raise GrammarError(str(e).splitlines()[0], line, column) from None


def accepts(text: str) -> bool:
    """Whether LitmusPTX.g4 accepts ``text``."""
    try:
        check_text(text)
    except GrammarError:
        return False
    return True
