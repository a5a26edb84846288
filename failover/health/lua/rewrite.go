package lua

import "github.com/yuin/gopher-lua/ast"

// gopher-lua's VM concatenates in a single instruction with no bound on the
// result, so `s = s .. s` doubles a string until the process runs out of
// memory. Before compiling, every `a .. b` is rewritten into a call of the
// bounded concat function.

func rewriteConcat(stmts []ast.Stmt) {
	for _, s := range stmts {
		rewriteStmt(s)
	}
}

func rewriteStmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		rewriteExprs(s.Lhs)
		rewriteExprs(s.Rhs)
	case *ast.LocalAssignStmt:
		rewriteExprs(s.Exprs)
	case *ast.FuncCallStmt:
		s.Expr = rewriteExpr(s.Expr)
	case *ast.DoBlockStmt:
		rewriteConcat(s.Stmts)
	case *ast.WhileStmt:
		s.Condition = rewriteExpr(s.Condition)
		rewriteConcat(s.Stmts)
	case *ast.RepeatStmt:
		s.Condition = rewriteExpr(s.Condition)
		rewriteConcat(s.Stmts)
	case *ast.IfStmt:
		s.Condition = rewriteExpr(s.Condition)
		rewriteConcat(s.Then)
		rewriteConcat(s.Else)
	case *ast.NumberForStmt:
		s.Init = rewriteExpr(s.Init)
		s.Limit = rewriteExpr(s.Limit)
		s.Step = rewriteExpr(s.Step)
		rewriteConcat(s.Stmts)
	case *ast.GenericForStmt:
		rewriteExprs(s.Exprs)
		rewriteConcat(s.Stmts)
	case *ast.FuncDefStmt:
		if s.Name != nil {
			s.Name.Func = rewriteExpr(s.Name.Func)
			s.Name.Receiver = rewriteExpr(s.Name.Receiver)
		}
		if s.Func != nil {
			rewriteConcat(s.Func.Stmts)
		}
	case *ast.ReturnStmt:
		rewriteExprs(s.Exprs)
	}
}

func rewriteExprs(es []ast.Expr) {
	for i := range es {
		es[i] = rewriteExpr(es[i])
	}
}

func rewriteExpr(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case nil:
		return nil
	case *ast.StringConcatOpExpr:
		call := &ast.FuncCallExpr{
			Func:      &ast.IdentExpr{Value: concatFunction},
			Args:      []ast.Expr{rewriteExpr(e.Lhs), rewriteExpr(e.Rhs)},
			AdjustRet: true,
		}
		call.SetLine(e.Line())
		call.SetLastLine(e.LastLine())
		call.Func.SetLine(e.Line())
		call.Func.SetLastLine(e.LastLine())
		return call
	case *ast.AttrGetExpr:
		e.Object = rewriteExpr(e.Object)
		e.Key = rewriteExpr(e.Key)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			f.Key = rewriteExpr(f.Key)
			f.Value = rewriteExpr(f.Value)
		}
	case *ast.FuncCallExpr:
		e.Func = rewriteExpr(e.Func)
		e.Receiver = rewriteExpr(e.Receiver)
		rewriteExprs(e.Args)
	case *ast.LogicalOpExpr:
		e.Lhs = rewriteExpr(e.Lhs)
		e.Rhs = rewriteExpr(e.Rhs)
	case *ast.RelationalOpExpr:
		e.Lhs = rewriteExpr(e.Lhs)
		e.Rhs = rewriteExpr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		e.Lhs = rewriteExpr(e.Lhs)
		e.Rhs = rewriteExpr(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		e.Expr = rewriteExpr(e.Expr)
	case *ast.UnaryNotOpExpr:
		e.Expr = rewriteExpr(e.Expr)
	case *ast.UnaryLenOpExpr:
		e.Expr = rewriteExpr(e.Expr)
	case *ast.FunctionExpr:
		rewriteConcat(e.Stmts)
	}
	return e
}
